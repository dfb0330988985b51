import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { serverAccount, type ServerAccount } from '../../src/platform/db/embedded-account.js';
import { freePort } from '../../src/platform/db/embedded.js';

const run = promisify(execFile);

/**
 * A primary and a streaming replica of the test's own, made from Debian's PostgreSQL
 * (/usr/lib/postgresql/<version>/bin, installed by .ci/run): initdb with `wal_level=replica` and
 * replication allowed on loopback, `pg_basebackup -R` on loopback into another directory, the
 * standby started on another free port. Both listen on 127.0.0.1 only, their sockets in their own
 * temporary directory. As root they run as the unprivileged `postgres` account (PostgreSQL refuses
 * root), which owns that directory: it is under os.tmpdir(), never under a 0700 /root or /work.
 */
export interface ReplicationPair {
  readonly dir: string;
  /** postgres:// URLs with the password, of the `postgres` database. */
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  /** Stops both (immediately) and deletes their files; safe to call twice, and after a failed start. */
  remove(): Promise<void>;
}

const USER = 'portway';
const PASSWORD = 'replica-test-password';

/** The bin directory of the newest Debian PostgreSQL with pg_basebackup; a clear failure when there is none. */
export function debianPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = versions.map((v) => path.join(root, v, 'bin')).find((dir) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((b) => existsSync(path.join(dir, b))));
  if (bin === undefined) {
    throw new Error(
      'The read replica test needs Debian\'s PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup under /usr/lib/postgresql/<version>/bin); '
      + 'none were found. Install them (`apt-get install postgresql`, as .ci/run does) and run the test again.',
    );
  }
  return bin;
}

export async function createReplicationPair(): Promise<ReplicationPair> {
  const bin = debianPostgresBin();
  const account: ServerAccount | undefined = serverAccount(pino({ level: 'silent' }));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portway-replicas-'));
  if (account) await fs.chown(dir, account.uid, account.gid);
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const asAccount = account ? { uid: account.uid, gid: account.gid } : {};
  const pg = async (program: string, args: string[]): Promise<void> => {
    try {
      await run(path.join(bin, program), args, { cwd: dir, env: { ...process.env, PGPASSWORD: PASSWORD, LC_ALL: 'C' }, timeout: 60_000, ...asAccount });
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${program} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
    }
  };
  const write = async (file: string, text: string, append = false) => {
    await (append ? fs.appendFile(file, text) : fs.writeFile(file, text));
    if (account) await fs.chown(file, account.uid, account.gid);
  };
  const started: string[] = [];
  // A test process that exits without `remove()` (a runner's timeout, an uncaught error) stops the
  // servers it started all the same: exit handlers cannot wait, so each postmaster gets an
  // immediate shutdown and the files go.
  const onExit = () => {
    for (const data of started) {
      try {
        process.kill(Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGQUIT');
      } catch {
        // Not running.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const stop = async (data: string, mode: 'fast' | 'immediate') => {
    if (existsSync(path.join(data, 'postmaster.pid'))) await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']).catch(() => undefined);
  };
  const pair: ReplicationPair = {
    dir,
    primaryUrl: '',
    standbyUrl: '',
    stopStandby: () => stop(standbyDir, 'fast'),
    startStandby: () => pg('pg_ctl', ['-D', standbyDir, '-l', path.join(dir, 'standby.log'), '-w', '-t', '60', 'start']),
    async remove() {
      for (const data of started.reverse()) await stop(data, 'immediate');
      started.length = 0;
      process.removeListener('exit', onExit);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  try {
    const primaryPort = await freePort();
    let standbyPort = await freePort();
    while (standbyPort === primaryPort) standbyPort = await freePort();
    const passwordFile = path.join(dir, 'password');
    await write(passwordFile, `${PASSWORD}\n`);
    await pg('initdb', ['-D', primaryDir, '-U', USER, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C.UTF-8']);
    await write(path.join(primaryDir, 'postgresql.conf'), [
      '', `port = ${primaryPort}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`,
      'wal_level = replica', 'max_wal_senders = 4', 'hot_standby = on', 'fsync = off', 'max_connections = 60', 'shared_buffers = 32MB', '',
    ].join('\n'), true);
    await write(path.join(primaryDir, 'pg_hba.conf'), [
      'host all all 127.0.0.1/32 scram-sha-256',
      'host replication all 127.0.0.1/32 scram-sha-256', '',
    ].join('\n'));
    started.push(primaryDir);
    await pg('pg_ctl', ['-D', primaryDir, '-l', path.join(dir, 'primary.log'), '-w', '-t', '60', 'start']);
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', USER, '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast']);
    // The copy's settings are the primary's: its own port, and queries on the standby wait for
    // nothing (a paused replay holds no lock they need).
    await write(path.join(standbyDir, 'postgresql.conf'), `\nport = ${standbyPort}\nhot_standby_feedback = on\n`, true);
    started.push(standbyDir);
    await pair.startStandby();
    const url = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
    return { ...pair, primaryUrl: url(primaryPort), standbyUrl: url(standbyPort) };
  } catch (error) {
    await pair.remove();
    throw error;
  }
}
