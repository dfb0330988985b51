import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { SERVER_ACCOUNT_NAME, isRoot } from '../../src/platform/db/embedded-account.js';
import { startEmbeddedPostgres } from '../../src/platform/db/embedded.js';
import { REPEAT_WINDOW_MS } from '../../src/platform/shutdown.js';
import { embeddedUrl, isRunning, makeTmpDir, postmaster, waitFor } from '../helpers/processes.js';
import {
  diagnostics, removeWhenDone, reportingOutput, root, serviceEnv, spawnService, startService, type Service,
} from '../helpers/service.js';

/**
 * The embedded default started the way users start it, from wherever their files are: as root
 * (CI, containers) PostgreSQL runs as its own unprivileged account, which can reach nothing under a
 * 0700 directory by path; as an ordinary user, as that user. No directory is opened up for it.
 */

const run = promisify(execFile);

/** What `npm ci` leaves in a checkout that the service needs, copied under `home`. */
async function checkoutUnder(home: string): Promise<string> {
  const checkout = path.join(home, 'portway');
  await fs.mkdir(checkout);
  for (const entry of ['bin', 'scripts', 'src', 'dist', 'migrations', 'package.json', 'package-lock.json', 'tsconfig.json']) {
    await fs.cp(path.join(root, entry), path.join(checkout, entry), { recursive: true });
  }
  // cp -a keeps node_modules' own symlinks (.bin, the PostgreSQL libraries) as they are.
  await run('cp', ['-a', path.join(root, 'node_modules'), path.join(checkout, 'node_modules')]);
  return checkout;
}

/** Owner uid of a process, from /proc. */
function processUid(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

async function accountUid(name: string): Promise<number> {
  return Number((await run('id', ['-u', name])).stdout.trim());
}

async function mode(file: string): Promise<number> {
  return (await fs.stat(file)).mode & 0o777;
}

async function expectReady(service: Service): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${service.port}/readyz`);
  assert.equal(res.status, 200, diagnostics(service));
  assert.deepEqual(await res.json(), { status: 'ready' });
}

/**
 * SIGTERM, a clean exit, and the embedded server shut down cleanly with it. Under `npm start` the
 * signal goes to npm, which passes it on to the service (the start script execs it) and exits
 * with its code.
 */
async function stopCleanly(service: Service, dataDir: string): Promise<void> {
  const server = postmaster(dataDir) ?? assert.fail('postmaster.pid of the embedded server');
  service.child.kill('SIGTERM');
  assert.deepEqual(await service.exited, { code: 0, signal: null }, diagnostics(service));
  await waitFor('the service to finish its shutdown', () => service.lines.some((l) => l.msg === 'shutdown complete'));
  assert.equal(isRunning(server.pid), false, 'the embedded server stopped with the service');
  assert.equal(postmaster(dataDir), undefined, 'and shut down cleanly');
}

/** The server runs as the unprivileged account when started by root, as the user otherwise. */
async function expectServerAccount(dataDir: string, uid: number): Promise<void> {
  const server = postmaster(dataDir) ?? assert.fail('postmaster.pid of the embedded server');
  assert.equal(processUid(server.pid), uid);
  assert.equal((await fs.stat(path.join(dataDir, 'postgres'))).uid, uid, 'the cluster belongs to the account that runs it');
}

describe('the embedded database starts from private directories', { timeout: 600_000 }, () => {
  it('`npm start` in a fresh checkout under a 0700 home (data in its ./data)', reportingOutput(async () => {
    const home = await makeTmpDir('portway-home-');
    assert.equal(await mode(home), 0o700);
    const checkout = await checkoutUnder(home);
    const dataDir = path.join(checkout, 'data');
    removeWhenDone(dataDir, home);

    const service = await startService(serviceEnv(undefined), { command: 'npm', args: ['start', '--silent'], cwd: checkout });
    await expectReady(service);
    await expectServerAccount(dataDir, isRoot() ? await accountUid(SERVER_ACCOUNT_NAME) : process.getuid?.() ?? -1);
    if (isRoot()) {
      const server = postmaster(dataDir) ?? assert.fail('postmaster.pid');
      const binary = readlinkSync(`/proc/${server.pid}/exe`);
      assert.ok(!binary.startsWith(home), `the server runs from binaries its account can reach (${binary})`);
    }
    assert.equal(await mode(home), 0o700, 'the home stays private');
    await stopCleanly(service, dataDir);
  }));

  it('as an ordinary user, from a checkout in their own 0700 home', reportingOutput(async () => {
    const home = await makeTmpDir('portway-user-home-');
    const checkout = await checkoutUnder(home);
    const dataDir = path.join(checkout, 'data');
    removeWhenDone(dataDir, home);
    // Run as root, the test becomes `nobody`, owning the home as a user owns theirs.
    const user = isRoot() ? { uid: await accountUid('nobody'), gid: Number((await run('id', ['-g', 'nobody'])).stdout.trim()) } : undefined;
    if (user) await run('chown', ['-R', `${user.uid}:${user.gid}`, home]);

    const service = await startService(serviceEnv(undefined, { HOME: home }), { cwd: checkout, ...user });
    await expectReady(service);
    await expectServerAccount(dataDir, user?.uid ?? process.getuid?.() ?? -1);
    await stopCleanly(service, dataDir);
  }));

  it('DATA_DIR=$(mktemp -d), and a DATA_DIR inside a 0700 directory, keeping their modes', reportingOutput(async () => {
    const expected = isRoot() ? await accountUid(SERVER_ACCOUNT_NAME) : process.getuid?.() ?? -1;
    const tmp = await makeTmpDir('portway-datadir-');
    removeWhenDone(tmp);
    const first = await startService(serviceEnv(tmp));
    await expectReady(first);
    await expectServerAccount(tmp, expected);
    assert.equal(await mode(tmp), 0o700);
    await stopCleanly(first, tmp);

    const parent = await makeTmpDir('portway-parent-');
    const nested = path.join(parent, 'deeper', 'data');
    removeWhenDone(nested, parent);
    const second = await startService(serviceEnv(nested));
    await expectReady(second);
    await expectServerAccount(nested, expected);
    assert.equal(await mode(parent), 0o700, 'the parent stays private');
    assert.equal(await mode(nested), 0o700, 'a DATA_DIR the service creates is private');
    await stopCleanly(second, nested);
  }));
});

describe('a start that cannot succeed', { timeout: 300_000 }, () => {
  /** Runs `serve` to its exit and returns what it printed on stderr, asserting it is one clear message. */
  async function refusedStart(env: NodeJS.ProcessEnv): Promise<string> {
    const service = spawnService(env);
    const { code } = await service.exited;
    const stderr = service.stderr();
    assert.equal(code, 1, diagnostics(service));
    assert.match(stderr, /^portway: The embedded PostgreSQL cannot start: /);
    assert.equal(stderr.match(/portway: /g)?.length, 1, 'one message');
    assert.match(stderr, /set DATABASE_URL/i, 'names the remedy');
    assert.doesNotMatch(stderr, /^\s+at\s/m, 'no stack trace');
    assert.doesNotMatch(stderr, /Unhandled|node:internal|ERR_/, 'no unhandled event');
    return stderr;
  }

  it('names the DATA_DIR that cannot be created', reportingOutput(async () => {
    const dir = await makeTmpDir('portway-blocked-');
    removeWhenDone(dir);
    const file = path.join(dir, 'a-file');
    await fs.writeFile(file, 'not a directory');
    const stderr = await refusedStart(serviceEnv(path.join(file, 'data')));
    assert.match(stderr, new RegExp(`DATA_DIR ${path.join(file, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be created or written \\(a part of the path is not a directory\\)`));
    assert.match(stderr, /Set DATA_DIR to a directory this user can write/);
  }));

  it('names the server\'s own complaint from its log when PostgreSQL refuses to run', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-badconf-');
    removeWhenDone(dataDir);
    const server = await startEmbeddedPostgres(dataDir, pino({ level: 'silent' }));
    await server.stop();
    await fs.appendFile(path.join(dataDir, 'postgres', 'postgresql.conf'), "\nshared_buffers = 'plenty'\n");
    const stderr = await refusedStart(serviceEnv(dataDir));
    assert.match(stderr, /the server exited \(code 1\); its log .*postgres\.log ends with:/);
    assert.match(stderr, /shared_buffers/);
    assert.equal(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), false, 'nothing is left running');
  }));
});

describe('a forced exit does not leave the embedded server running', { timeout: 300_000 }, () => {
  /**
   * A service whose shutdown cannot finish: a PUT waits on a lock this test holds. Returns the
   * service, the server's pid and a function that releases everything the test holds.
   */
  async function stuckService(extraEnv: Record<string, string>) {
    const dataDir = await makeTmpDir('portway-forced-');
    removeWhenDone(dataDir);
    const service = await startService(serviceEnv(dataDir, extraEnv));
    const { stdout } = await run(process.execPath, ['bin/portway.js', 'token', 'mint'], { cwd: root, env: serviceEnv(dataDir) });
    const server = postmaster(dataDir) ?? assert.fail('postmaster.pid');
    const locker = new pg.Client({ connectionString: embeddedUrl(dataDir) });
    locker.on('error', () => undefined); // the server going away ends this connection; that is the point
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
    const put = fetch(`http://127.0.0.1:${service.port}/api/integration/catalogue/products`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stdout.trim()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'forced-exit', data: [{ sku: 'STUCK' }] }),
    }).catch(() => undefined);
    await waitFor('the PUT to wait for the lock', async () => {
      const { rows } = await locker.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted");
      return (rows[0]?.n ?? 0) > 0;
    });
    return { service, server, release: async () => { await put; await locker.end().catch(() => undefined); } };
  }

  it('nor does a SIGTERM that arrives while the service is still starting', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-early-');
    removeWhenDone(dataDir);
    const service = spawnService(serviceEnv(dataDir));
    await waitFor('the embedded server to be up', () => service.lines.some((l) => l.msg === 'embedded PostgreSQL started'));
    const server = postmaster(dataDir) ?? assert.fail('postmaster.pid');
    service.child.kill('SIGTERM');
    assert.deepEqual(await service.exited, { code: 0, signal: null }, diagnostics(service));
    assert.ok(service.lines.some((l) => l.msg === 'shutdown complete'), diagnostics(service));
    assert.equal(isRunning(server.pid), false, 'the embedded server stopped with the service');
  }));

  it('on a second signal', reportingOutput(async () => {
    const { service, server, release } = await stuckService({});
    service.child.kill('SIGTERM');
    await waitFor('the service to start shutting down', () => service.lines.some((l) => l.msg === 'shutting down'));
    // The same signal within REPEAT_WINDOW_MS is taken for npm's forwarded copy of the first.
    await new Promise((r) => setTimeout(r, REPEAT_WINDOW_MS + 200));
    service.child.kill('SIGTERM');
    assert.deepEqual(await service.exited, { code: 1, signal: null }, diagnostics(service));
    await waitFor('the embedded server to stop', () => !isRunning(server.pid));
    await release();
  }));

  it('when the grace period runs out', reportingOutput(async () => {
    const { service, server, release } = await stuckService({ SHUTDOWN_GRACE_MS: '500' });
    service.child.kill('SIGTERM');
    assert.deepEqual(await service.exited, { code: 1, signal: null }, diagnostics(service));
    assert.ok(service.lines.some((l) => /did not finish within SHUTDOWN_GRACE_MS/.test(l.msg)), diagnostics(service));
    await waitFor('the embedded server to stop', () => !isRunning(server.pid));
    await release();
  }));
});
