import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stopLeftoverServer, waitFor } from './processes.js';

/**
 * `portway` as users run it, in processes of their own, on the embedded default: the children never
 * see the test run's DATABASE_URL or JWT settings. Everything started here is killed, and every
 * DATA_DIR registered is stopped and removed, when the test file ends.
 */

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface LogLine { level: number; msg: string; [key: string]: unknown }

export interface Spawned {
  child: ChildProcess;
  lines: LogLine[];
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Service extends Spawned { port: number }

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];
const outputs: Array<Pick<Spawned, 'lines' | 'stderr'>> = [];

after(async () => {
  // Each child leads a process group of its own, so what it started (npm's service) goes with it.
  for (const child of children) {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Stops a leftover server under `dataDir` and removes `dir` (default: dataDir) when the file ends. */
export function removeWhenDone(dataDir: string, dir = dataDir): void {
  cleanups.push(async () => {
    await stopLeftoverServer(dataDir);
    await fs.rm(dir, { recursive: true, force: true });
  });
}

/** The environment of a service on the embedded default under `dataDir` (none: the checkout's ./data). */
export function serviceEnv(dataDir: string | undefined, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name === 'DATABASE_URL' || name === 'DATA_DIR' || name.startsWith('INTEGRATION_JWT') || name === 'INTEGRATION_JWKS_URL') delete env[name];
  }
  delete env.NODE_TEST_CONTEXT;
  return { ...env, ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...extra };
}

export interface SpawnOptions {
  /** What to run; default `node bin/portway.js serve`. */
  command?: string;
  args?: string[];
  cwd?: string;
  uid?: number;
  gid?: number;
}

/** Starts a process whose stdout is pino's JSON lines (kept in `lines`). */
export function spawnService(env: NodeJS.ProcessEnv, options: SpawnOptions = {}): Spawned {
  const child = spawn(options.command ?? process.execPath, options.args ?? ['bin/portway.js', 'serve'], {
    cwd: options.cwd ?? root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  children.push(child);
  const lines: LogLine[] = [];
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      // npm prints its own lines ("> portway@0.1.0 start") before the service's JSON.
      if (line.startsWith('{')) lines.push(JSON.parse(line) as LogLine);
    }
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  outputs.push({ lines, stderr: () => stderr });
  return { child, lines, stderr: () => stderr, exited };
}

/** Starts the service and waits for pino's "Server listening at http://127.0.0.1:PORT" line. */
export async function startService(env: NodeJS.ProcessEnv, options: SpawnOptions = {}): Promise<Service> {
  const service = spawnService(env, options);
  let exitedEarly = false;
  void service.exited.then(() => { exitedEarly = true; });
  const port = await waitFor('the service to listen', () => {
    if (exitedEarly) throw new Error(`serve exited before listening:\n${service.stderr()}`);
    for (const line of service.lines) {
      const match = /^Server listening at http:\/\/127\.0\.0\.1:(\d+)$/.exec(line.msg);
      if (match) return Number(match[1]);
    }
    return undefined;
  }, 120_000);
  return { ...service, port };
}

/** A service's log and stderr, for assertion messages. */
export function diagnostics(service: Pick<Spawned, 'lines' | 'stderr'>): string {
  return `service output:\n${service.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${service.stderr()}`;
}

/** On failure, the output of every process started so far goes to the test report. */
export function reportingOutput(fn: () => Promise<void>): (t: TestContext) => Promise<void> {
  return async (t) => {
    try {
      await fn();
    } catch (error) {
      for (const output of outputs) t.diagnostic(diagnostics(output));
      throw error;
    }
  };
}
