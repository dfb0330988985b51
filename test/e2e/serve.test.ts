import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { startEmbeddedPostgres } from '../../src/platform/db/embedded.js';
import { embeddedUrl, isRunning, makeTmpDir, postmaster, waitFor } from '../helpers/processes.js';
import {
  diagnostics, removeWhenDone, reportingOutput, root, serviceEnv, spawnService, startService as startServiceWith,
} from '../helpers/service.js';

const run = promisify(execFile);

/** `portway serve` on the embedded default under `dataDir`. */
const startService = (dataDir: string, extraEnv: Record<string, string> = {}) => startServiceWith(serviceEnv(dataDir, extraEnv));
const spawnServe = (env: NodeJS.ProcessEnv, command = 'serve') => spawnService(env, { args: ['bin/portway.js', command] });
const dirs = { push: (dir: string) => removeWhenDone(dir) };

async function mintToken(dataDir: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/portway.js', 'token', 'mint'], { cwd: root, env: serviceEnv(dataDir) });
  const token = stdout.trim();
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'token mint prints a JWT');
  return token;
}

function putProducts(port: number, token: string, data: unknown[]): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/api/integration/catalogue/products`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source: 'e2e-erp', data }),
  });
}

describe('portway serve on the embedded default', { timeout: 600_000 }, () => {
  it('serves, shuts down gracefully on SIGTERM, and keeps its data across a restart', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-');
    dirs.push(dataDir);

    const service = await startService(dataDir);
    assert.ok(service.lines.some((l) => l.msg === 'initialising embedded PostgreSQL'), 'a fresh DATA_DIR is initialised');
    assert.ok(service.lines.some((l) => l.msg === 'embedded PostgreSQL started'));
    assert.equal(await fs.readFile(path.join(dataDir, 'postgres.owner'), 'utf8'), String(service.child.pid));
    // The pool's connections (DATABASE_POOL_SIZE, 10 by default) open before the service listens.
    const opened = service.lines.findIndex((l) => l.msg === 'database connections opened');
    const listening = service.lines.findIndex((l) => l.msg.startsWith('Server listening at'));
    assert.ok(opened >= 0 && opened < listening, 'connections opened, then listening');
    assert.equal(service.lines[opened]?.connections, 10);

    const token = await mintToken(dataDir);
    const res = await putProducts(service.port, token, [
      { sku: 'E2E-1', name: 'First product', unitPrice: 12.5, blocked: false },
      { sku: 'E2E-2', name: 'Second product', unitPrice: '3.0001' },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      data: [{ key: 'E2E-1', outcome: 'Upserted' }, { key: 'E2E-2', outcome: 'Upserted' }],
    });

    const ready = await fetch(`http://127.0.0.1:${service.port}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });

    // Graceful shutdown: a PUT blocked on a table lock when SIGTERM arrives still completes.
    const server = postmaster(dataDir) ?? assert.fail('postmaster.pid of the embedded server');
    assert.equal(isRunning(server.pid), true);
    const locker = new pg.Client({ connectionString: embeddedUrl(dataDir) });
    // Once the lock is released the service may finish and stop PostgreSQL before this client's
    // own goodbye reaches the server; that termination (57P01) is expected, anything else is not.
    const lockerErrors: Error[] = [];
    locker.on('error', (error: Error & { code?: string }) => { if (error.code !== '57P01') lockerErrors.push(error); });
    await locker.connect();
    const { rows: [pooled] } = await locker.query<{ n: number }>(
      "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'portway'");
    assert.ok((pooled?.n ?? 0) >= 10, `the pool's ten connections stay open (${pooled?.n})`);
    let inFlight: Promise<Response> | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      inFlight = putProducts(service.port, token, [{ sku: 'E2E-INFLIGHT', name: 'Written during shutdown' }]);
      inFlight.catch(() => undefined); // awaited below; keeps an early rejection from going unhandled
      await waitFor('the PUT to wait for the products lock', async () => {
        const { rows } = await locker.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'products'::regclass AND NOT granted",
        );
        return (rows[0]?.n ?? 0) > 0;
      });
      service.child.kill('SIGTERM');
      await waitFor('the service to start shutting down', () => service.lines.some((l) => l.msg === 'shutting down'));
      await locker.query('COMMIT');
    } finally {
      await locker.end(); // also releases the lock if the test failed before COMMIT
    }

    assert.deepEqual(lockerErrors, []);
    const late = await inFlight;
    assert.equal(late.status, 200);
    assert.deepEqual(await late.json(), { data: [{ key: 'E2E-INFLIGHT', outcome: 'Upserted' }] });
    assert.deepEqual(await service.exited, { code: 0, signal: null }, diagnostics(service));
    assert.ok(service.lines.some((l) => l.msg === 'shutdown complete'));
    assert.equal(isRunning(server.pid), false, 'the embedded server is stopped with the service');
    assert.equal(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), false, 'the server shut down cleanly');
    assert.equal(existsSync(path.join(dataDir, 'postgres.owner')), false);

    // Restart on the same DATA_DIR: no initdb, and everything written before is still there.
    const restarted = await startService(dataDir);
    try {
      assert.ok(!restarted.lines.some((l) => l.msg === 'initialising embedded PostgreSQL'), 'an existing DATA_DIR is reused');
      const readyAgain = await fetch(`http://127.0.0.1:${restarted.port}/readyz`);
      assert.equal(readyAgain.status, 200);
      await readyAgain.body?.cancel();

      // The test attaches to the running service's server, like a second Portway process would.
      const attached = await startEmbeddedPostgres(dataDir, pino({ level: 'silent' }));
      assert.equal(attached.owned, false);
      const client = new pg.Client({ connectionString: attached.url });
      await client.connect();
      try {
        const { rows } = await client.query('SELECT sku, name, unit_price FROM products ORDER BY sku');
        assert.deepEqual(rows, [
          { sku: 'E2E-1', name: 'First product', unit_price: '12.5000' },
          { sku: 'E2E-2', name: 'Second product', unit_price: '3.0001' },
          { sku: 'E2E-INFLIGHT', name: 'Written during shutdown', unit_price: null },
        ]);
      } finally {
        await client.end();
        await attached.stop();
      }

      // The restarted service still answers with a token minted under the same DATA_DIR.
      const again = await putProducts(restarted.port, await mintToken(dataDir), [{ sku: 'E2E-1', name: 'First product', unitPrice: 12.5, blocked: false }]);
      assert.equal(again.status, 200);
      await again.body?.cancel();
    } finally {
      restarted.child.kill('SIGTERM');
      assert.deepEqual(await restarted.exited, { code: 0, signal: null }, diagnostics(restarted));
    }
  }));

  it('provisions through the worker in the service, or through `portway worker` when WORKER_IN_PROCESS=false', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-worker-');
    dirs.push(dataDir);
    const mailDir = path.join(dataDir, 'mail');
    const mails = async () => (existsSync(mailDir) ? (await fs.readdir(mailDir)).filter((f) => f.endsWith('.eml')) : []);
    const putCustomer = (port: number, token: string, accountNo: string, email: string) => fetch(`http://127.0.0.1:${port}/api/integration/customer`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'e2e-erp', data: [{ account: { accountNo, name: accountNo, status: 'Active' }, admin: { name: 'Admin', email } }] }),
    });

    // Default: the worker runs inside `serve`.
    const service = await startService(dataDir);
    const token = await mintToken(dataDir);
    try {
      const res = await putCustomer(service.port, token, 'E2E-IN', 'in@example.com');
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await waitFor('the invitation written by the in-process worker', async () => (await mails()).length === 1);
    } finally {
      service.child.kill('SIGTERM');
      assert.deepEqual(await service.exited, { code: 0, signal: null }, diagnostics(service));
    }

    // HTTP only; the job waits in the database until `portway worker` runs it.
    const httpOnly = await startService(dataDir, { WORKER_IN_PROCESS: 'false' });
    try {
      const res = await putCustomer(httpOnly.port, token, 'E2E-OUT', 'out@example.com');
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const client = new pg.Client({ connectionString: embeddedUrl(dataDir) });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'customers.provision-user'");
        assert.equal(rows[0].n, 1, 'queued, not run: no worker in this process');
      } finally {
        await client.end();
      }
      assert.equal(httpOnly.lines.some((l) => l.msg === 'job worker started'), false);

      const worker = spawnServe(serviceEnv(dataDir), 'worker');
      try {
        await waitFor('the invitation written by `portway worker`', async () => (await mails()).length === 2);
      } finally {
        worker.child.kill('SIGTERM');
        assert.deepEqual(await worker.exited, { code: 0, signal: null }, diagnostics(worker));
      }
      assert.ok(worker.lines.some((l) => l.msg === 'shutdown complete'));
    } finally {
      httpOnly.child.kill('SIGTERM');
      assert.deepEqual(await httpOnly.exited, { code: 0, signal: null }, diagnostics(httpOnly));
    }
  }));

  it('refuses to start on a config error, naming the variable, without a stack trace', async () => {
    const dataDir = await makeTmpDir('portway-e2e-config-');
    dirs.push(dataDir);
    const service = spawnServe(serviceEnv(dataDir, { PORT: 'abc' }));
    const { code } = await service.exited;
    assert.notEqual(code, 0);
    assert.equal(code, 78, 'EX_CONFIG');
    assert.match(service.stderr(), /\bPORT\b/);
    assert.doesNotMatch(service.stderr(), /^\s+at\s/m, 'no stack trace');
    assert.equal(existsSync(path.join(dataDir, 'postgres')), false, 'no database is started for a bad config');
  });
});
