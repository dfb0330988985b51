import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { serverAccount } from '../../src/platform/db/embedded-account.js';
import { makeTmpDir, waitFor } from './processes.js';

/**
 * A real PgBouncer (Debian's `pgbouncer`, which .ci/run installs) on a free loopback port, in front
 * of the PostgreSQL server of `target`: its own ini and auth file in a directory of its own under
 * the system's temporary directory, run as the unprivileged account the embedded PostgreSQL uses
 * when the tests run as root (PgBouncer refuses to run as root). Clients log in to it with the
 * target's user and password, which it also uses to log in to the server.
 */
export interface PgBouncer {
  readonly port: number;
  /** `target` with its host and port replaced by PgBouncer's, for database `name` (default: the target's). */
  url(name?: string): string;
  /** Its client connections now (the admin console's SHOW CLIENTS), without the console's own. */
  clients(): Promise<Array<{ database: string; application_name: string }>>;
  /** PgBouncer's own log (stderr), for assertion messages. */
  log(): string;
  stop(): Promise<void>;
}

const INSTALL_HINT = '.ci/run installs it (Debian\'s package: apt-get install pgbouncer)';

function pgbouncerBinary(): string {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']) {
    if (spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  if (spawnSync('pgbouncer', ['--version'], { stdio: 'ignore' }).status === 0) return 'pgbouncer';
  throw new Error(`pgbouncer is not installed: ${INSTALL_HINT}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A value in PgBouncer's auth file: in double quotes, a double quote doubled. */
const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`;

export async function startPgBouncer(target: string, options: { poolMode?: 'transaction' | 'session'; poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  const t = new URL(target);
  const user = decodeURIComponent(t.username);
  const password = decodeURIComponent(t.password);
  const account = serverAccount(pino({ level: 'silent' }));
  const dir = await makeTmpDir('portway-pgbouncer-');
  let child: ChildProcess | undefined;
  let log = '';
  try {
    const port = await freePort();
    const ini = [
      '[databases]',
      `* = host=${t.hostname} port=${t.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `admin_users = ${user}`,
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 200',
      // A client waiting for a server connection longer than this is told so (08P01), not left hanging.
      'query_wait_timeout = 60',
    ].join('\n');
    await fs.writeFile(path.join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o600 });
    await fs.writeFile(path.join(dir, 'users.txt'), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o600 });
    if (account) {
      // mkdtemp made the directory 0700 and root's: the account gets it and what is in it.
      for (const f of ['', 'pgbouncer.ini', 'users.txt']) await fs.chown(path.join(dir, f), account.uid, account.gid);
    }
    const started = spawn(binary, [path.join(dir, 'pgbouncer.ini')], {
      cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], ...(account ? { uid: account.uid, gid: account.gid } : {}),
    });
    child = started;
    started.stdout?.on('data', (c: Buffer) => { log += c.toString('utf8'); });
    started.stderr?.on('data', (c: Buffer) => { log += c.toString('utf8'); });
    let exited = false;
    // Not left listening when the test process ends without its after hook (a crash, a timeout).
    const orphaned = () => { if (!exited) started.kill('SIGKILL'); };
    process.once('exit', orphaned);
    started.once('exit', () => { exited = true; process.off('exit', orphaned); });
    const probe = new URL(target);
    probe.hostname = '127.0.0.1';
    probe.port = String(port);
    await waitFor('PgBouncer to accept connections', async () => {
      if (exited) throw new Error(`pgbouncer exited at start:\n${log}`);
      const c = new pg.Client({ connectionString: probe.toString(), connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await c.end().catch(() => undefined);
      }
    }, 30_000);
    return {
      port,
      url(name) {
        const u = new URL(target);
        u.hostname = '127.0.0.1';
        u.port = String(port);
        if (name !== undefined) u.pathname = `/${name}`;
        return u.toString();
      },
      async clients() {
        const admin = new URL(probe);
        admin.pathname = '/pgbouncer';
        const c = new pg.Client({ connectionString: admin.toString() });
        await c.connect();
        try {
          const { rows } = await c.query<{ database: string; application_name: string }>('SHOW CLIENTS');
          return rows.filter((r) => r.database !== 'pgbouncer').map((r) => ({ database: r.database, application_name: r.application_name }));
        } finally {
          await c.end();
        }
      },
      log: () => log,
      async stop() {
        if (!exited) {
          const gone = new Promise((r) => started.once('exit', r));
          started.kill('SIGTERM');
          await gone;
        }
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
}
