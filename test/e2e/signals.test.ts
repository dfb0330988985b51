import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { embeddedUrl, isRunning, makeTmpDir, postmaster, waitFor } from '../helpers/processes.js';
import {
  diagnostics, removeWhenDone, reportingOutput, root, serviceEnv, spawnService, startService, type Spawned,
} from '../helpers/service.js';

/**
 * How the service ends and what it survives, as an operator meets it: Ctrl-C on `npm start` (SIGINT
 * to the whole process group, which npm then forwards a second time), a second Ctrl-C, SIGTERM from
 * a process manager behind a load balancer, and the embedded PostgreSQL dying under the service.
 */

const run = promisify(execFile);

/** `npm start` as a terminal runs it: the leader of a process group of its own. */
function npmStart(dataDir: string, extra: Record<string, string> = {}): Spawned {
  const npm = process.env.npm_execpath;
  return npm
    ? spawnService(serviceEnv(dataDir, extra), { command: process.execPath, args: [npm, 'start'] })
    : spawnService(serviceEnv(dataDir, extra), { command: 'npm', args: ['start'] });
}

/** Ctrl-C in the terminal: SIGINT to every process of the foreground group. */
const ctrlC = (service: Spawned) => process.kill(-(service.child.pid as number), 'SIGINT');

const listening = (service: Spawned) => waitFor('the service to listen', () => {
  for (const line of service.lines) {
    const match = /^Server listening at http:\/\/127\.0\.0\.1:(\d+)$/.exec(line.msg);
    if (match) return Number(match[1]);
  }
  return undefined;
}, 120_000);

const errorsLogged = (service: Spawned) => service.lines.filter((l) => l.level >= 50);

async function serverGone(dataDir: string): Promise<void> {
  await waitFor('the embedded PostgreSQL to stop', () => {
    const server = postmaster(dataDir);
    return server === undefined || !isRunning(server.pid);
  }, 30_000);
}

/** One request on a connection of its own; the answer's status and headers. */
function get(port: number, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: new http.Agent({ keepAlive: true }) }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.once('error', reject);
  });
}

describe('signals and a dying embedded database', { timeout: 600_000 }, () => {
  it('Ctrl-C during the first start after npm ci, then once listening: one clean shutdown and no PostgreSQL left running', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-ctrlc-');
    removeWhenDone(dataDir);

    const first = npmStart(dataDir);
    await waitFor('the first start to initialise its cluster', () => first.lines.some((l) => l.msg === 'initialising embedded PostgreSQL'), 120_000);
    ctrlC(first);
    const early = await first.exited;
    assert.equal(early.code, 0, diagnostics(first));
    assert.deepEqual(errorsLogged(first), [], 'nothing logged as an error');
    assert.equal(first.lines.filter((l) => l.msg === 'shutting down').length, 1, 'one shutdown');
    await serverGone(dataDir);

    const second = npmStart(dataDir);
    await listening(second);
    ctrlC(second);
    const ended = await second.exited;
    assert.equal(ended.code, 0, diagnostics(second));
    assert.deepEqual(errorsLogged(second), [], 'nothing logged as an error');
    assert.equal(second.lines.filter((l) => l.msg === 'shutting down').length, 1, 'npm\'s forwarded copy of the signal starts no second shutdown');
    assert.ok(second.lines.some((l) => l.msg === 'embedded PostgreSQL stopped'));
    assert.ok(second.lines.some((l) => l.msg === 'shutdown complete'));
    await serverGone(dataDir);
  }));

  it('a second Ctrl-C exits at once, and the embedded PostgreSQL still stops', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-ctrlc2-');
    removeWhenDone(dataDir);
    const service = npmStart(dataDir);
    const port = await listening(service);
    const env = serviceEnv(dataDir);
    const token = (await run(process.execPath, ['bin/portway.js', 'token', 'mint'], { cwd: root, env })).stdout.trim();
    // A batch held on a table lock keeps the graceful shutdown waiting.
    const locker = new pg.Client({ connectionString: embeddedUrl(dataDir) });
    locker.on('error', () => undefined); // the server goes away under it
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
    const held = fetch(`http://127.0.0.1:${port}/api/integration/catalogue/products`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'e2e', data: [{ sku: 'HELD-1' }] }),
    }).catch(() => undefined);
    await waitFor('the batch to wait for the lock', async () =>
      (await locker.query("SELECT 1 FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted")).rowCount! > 0);
    ctrlC(service);
    await waitFor('the shutdown to begin', () => service.lines.some((l) => l.msg === 'shutting down'));
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(service.child.exitCode, null, 'still waiting for the held batch');
    ctrlC(service);
    const ended = await service.exited;
    assert.equal(ended.code, 1, diagnostics(service));
    assert.ok(service.lines.some((l) => /second signal/.test(l.msg)));
    await serverGone(dataDir);
    await held;
    await locker.end().catch(() => undefined);
  }));

  it('on SIGTERM /readyz answers 503 at once, requests are still served during the drain, and every answer says Connection: close', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-drain-');
    removeWhenDone(dataDir);
    const service = await startService(serviceEnv(dataDir, { SHUTDOWN_DRAIN_MS: '3000' }));
    const before = await get(service.port, '/readyz');
    assert.equal(before.status, 200);
    assert.notEqual(before.headers.connection, 'close');

    service.child.kill('SIGTERM');
    await waitFor('the shutdown to begin', () => service.lines.some((l) => l.msg === 'shutting down'));
    const ready = await get(service.port, '/readyz');
    assert.equal(ready.status, 503, 'a load balancer stops sending here');
    assert.equal(ready.headers['retry-after'], '1');
    assert.equal(ready.headers.connection, 'close');
    const health = await get(service.port, '/healthz');
    assert.equal(health.status, 200, 'still serving during the drain');
    assert.equal(health.headers.connection, 'close', 'no next request on this connection');
    assert.deepEqual(await service.exited, { code: 0, signal: null }, diagnostics(service));
  }));

  it('starts the embedded PostgreSQL again when it dies, and answers again without a restart of the service', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-pgdies-');
    removeWhenDone(dataDir);
    const service = await startService(serviceEnv(dataDir));
    // Started whole (the worker and the indexer connect after the listener opens).
    await waitFor('the worker and the indexer', () => service.lines.some((l) => l.msg === 'search indexer active')
      && service.lines.some((l) => l.msg === 'job worker started'), 60_000);
    const server = postmaster(dataDir) ?? assert.fail('postmaster.pid');
    process.kill(server.pid, 'SIGKILL');
    await waitFor('the service to start it again', () => service.lines.some((l) => l.msg === 'embedded PostgreSQL started again'), 60_000);
    const again = postmaster(dataDir) ?? assert.fail('postmaster.pid after the restart');
    assert.notEqual(again.pid, server.pid);
    assert.equal(again.port, server.port, 'the same port: the pool\'s URL stays right');
    await waitFor('/readyz to answer 200', async () => (await get(service.port, '/readyz')).status === 200, 30_000);
    assert.equal(service.child.exitCode, null, 'the service kept running');
    service.child.kill('SIGTERM');
    assert.deepEqual(await service.exited, { code: 0, signal: null }, diagnostics(service));
    await serverGone(dataDir);
  }));
});
