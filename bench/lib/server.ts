import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../../src/config.js';
import { ADMIN_SCOPE, mintIntegrationToken } from '../../src/platform/http/integration-auth.js';
import { REPO_ROOT } from './paths.js';

/**
 * The service under test, run as it runs in production: a child process `node bin/portway.js serve`
 * on a loopback port with a DATA_DIR of its own, pointed at the benchmark's database. Running it
 * apart keeps the bench's own work (generating catalogues, sending, reading answers) out of the
 * server's memory and event loop, and lets us read the server's peak RSS from the kernel
 * (`VmHWM` in /proc/<pid>/status) instead of sampling it.
 *
 * Extra Node flags for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS
 * refuses) can be given in BENCH_SERVER_NODE_ARGS, space-separated; its log level in
 * BENCH_SERVER_LOG_LEVEL (default `info`, as in production).
 */
export interface RunningServer {
  readonly baseUrl: string;
  /** The size of the server's database pool (DATABASE_POOL_SIZE as it loaded its configuration). */
  readonly databasePoolSize: number;
  readonly pid: number;
  readonly logFile: string;
  /** A bearer token the server accepts (scope integration:write). */
  readonly token: string;
  /** A bearer token for the admin surface (`/api/admin`, scope admin), as `portway token mint --scope admin` makes one. */
  readonly adminToken: string;
  /** Peak resident set size so far in MiB (VmHWM), or undefined where /proc is not available. */
  peakRssMb(): number | undefined;
  /** Current resident set size in MiB (VmRSS), or undefined where /proc is not available. */
  rssMb(): number | undefined;
  /** CPU time (user + system) the server process has used so far in seconds, or undefined where /proc is not available. */
  cpuSeconds(): number | undefined;
  /** The last lines of the server's log, for error messages. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** Variables that choose another JWT key source; the bench always uses a shared secret of its own. */
const JWT_KEY_VARIABLES = ['INTEGRATION_JWT_PUBLIC_KEY', 'INTEGRATION_JWKS_URL', 'INTEGRATION_JWT_ALGORITHM'];

function procStatusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of every thread of the process, in seconds (USER_HZ is 100 on Linux). */
function procCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function tail(file: string, lines: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export interface StartServerOptions {
  databaseUrl: string;
  env?: Record<string, string>;
  /** Variables of the bench's own environment the server must not see (ERP_URL, for a bench that measures the in-process ERP stand-in). */
  unsetEnv?: readonly string[];
  /**
   * What node runs after its flags; default `bin/portway.js serve`. A scenario that needs routes of
   * its own beside the real ones (the lookup's baseline) gives its entry file, e.g.
   * `['--import', 'tsx', 'bench/lib/lookup-server.ts']`. The entry must log Fastify's
   * "Server listening at" line on stdout and serve /readyz, as `serve` does.
   */
  command?: readonly string[];
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-bench-app-'));
  const logFile = path.join(dataDir, 'server.log');
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: options.databaseUrl,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    INTEGRATION_JWT_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'info',
    ...options.env,
  };
  for (const name of [...JWT_KEY_VARIABLES, ...(options.unsetEnv ?? [])]) delete env[name];
  const config = loadConfig(env);
  const token = await mintIntegrationToken(config, { ttlSeconds: 6 * 3600, subject: 'portway-bench' });
  const adminToken = await mintIntegrationToken(config, { scope: ADMIN_SCOPE, ttlSeconds: 6 * 3600, subject: 'portway-bench' });

  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const command = options.command ?? [path.join(REPO_ROOT, 'bin/portway.js'), 'serve'];
  const child = spawn(process.execPath, [...nodeArgs, ...command], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = fs.createWriteStream(logFile);
  child.stderr?.pipe(log, { end: false });
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream, crlfDelay: Infinity });

  const cleanupDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  let baseUrl: string;
  try {
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start within 120 s:\n${tail(logFile, 20)}`)), 120_000);
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        // Give the log stream a moment to flush what the child wrote last.
        setTimeout(() => reject(new Error(`the server exited (${signal ?? `code ${String(code)}`}) before listening:\n${tail(logFile, 20)}`)), 100);
      };
      child.once('exit', onExit);
      lines.on('line', (line) => {
        log.write(`${line}\n`);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(match[1] as string);
        }
      });
    });
    const ready = await fetch(`${baseUrl}/readyz`);
    if (ready.status !== 200) throw new Error(`/readyz answered ${ready.status}: ${await ready.text()}`);
  } catch (error) {
    child.kill('SIGKILL');
    await waitForExit(child, 5_000);
    log.end();
    cleanupDir();
    throw error;
  }

  const pid = child.pid as number;
  let stopped = false;
  return {
    baseUrl,
    databasePoolSize: config.databasePoolSize,
    pid,
    logFile,
    token,
    adminToken,
    peakRssMb: () => {
      const kb = procStatusKb(pid, 'VmHWM');
      return kb === undefined ? undefined : kb / 1024;
    },
    rssMb: () => {
      const kb = procStatusKb(pid, 'VmRSS');
      return kb === undefined ? undefined : kb / 1024;
    },
    cpuSeconds: () => procCpuSeconds(pid),
    logTail: (n = 20) => tail(logFile, n),
    async stop() {
      if (stopped) return;
      stopped = true;
      // SIGTERM is the graceful shutdown (platform/shutdown.ts): in-flight requests finish, the pool closes.
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 25_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
      await new Promise<void>((resolve) => log.end(resolve));
      cleanupDir();
    },
  };
}
