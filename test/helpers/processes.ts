import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/**
 * Helpers for process-level tests: temporary DATA_DIRs, the embedded server's files, and
 * "is this process still running" checks.
 */

/**
 * A fresh directory under os.tmpdir(), as mkdtemp makes it: mode 0700, so (run as root) the
 * embedded server's own account cannot reach anything under it by path, as for a user's
 * `DATA_DIR=$(mktemp -d)` or a checkout under a 0700 home.
 */
export async function makeTmpDir(prefix: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * Whether `pid` is a running process. A zombie (exited, waiting to be reaped by a parent or an
 * init that never reaps) has stopped running and counts as gone; `kill(pid, 0)` alone would
 * report it as alive.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may contain spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Line 1 (pid) and line 4 (port) of DATA_DIR/postgres/postmaster.pid, or undefined when the file is absent. */
export function postmaster(dataDir: string): { pid: number; port: number } | undefined {
  const file = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/** Connection URL of the embedded server under `dataDir`, read from its credentials file and postmaster.pid. */
export function embeddedUrl(dataDir: string): string {
  const { user, password } = JSON.parse(readFileSync(path.join(dataDir, 'postgres.credentials.json'), 'utf8')) as {
    user: string; password: string;
  };
  const running = postmaster(dataDir);
  if (!running) throw new Error(`no postmaster.pid under ${dataDir}`);
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${running.port}/postgres`;
}

/** Polls `check` until it returns a truthy value; throws after `timeoutMs` (a safety net, not a measured duration). */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops a leftover embedded server under `dataDir` (fast shutdown, then SIGKILL). For `after` hooks. */
export async function stopLeftoverServer(dataDir: string): Promise<void> {
  const running = postmaster(dataDir);
  if (!running || !isRunning(running.pid)) return;
  try {
    process.kill(running.pid, 'SIGINT');
    await waitFor('leftover server to stop', () => !isRunning(running.pid), 20_000);
  } catch {
    if (isRunning(running.pid)) process.kill(running.pid, 'SIGKILL');
  }
}

/** A pino logger whose JSON lines are kept in `lines`, so tests can check what was logged. */
export function capturingLogger(): { logger: Logger; lines: Array<{ level: number; msg: string } & Record<string, unknown>> } {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}
