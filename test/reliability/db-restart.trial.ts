import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { createCluster, type TestCluster } from '../helpers/cluster.js';
import { makeTmpDir, waitFor } from '../helpers/processes.js';
import { removeWhenDone, root, serviceEnv, startService } from '../helpers/service.js';
import { reportFigures } from './figures.js';

/**
 * Database restarts during ingest. One `portway serve` (worker and search indexer in process) on a
 * cluster of the trial's own; four clients push product batches back to back while the cluster is
 * crashed (`pg_ctl stop -m immediate`: SIGQUIT to the postmaster) and started again 30 times. Every
 * batch writes products that carry its own id, so afterwards each batch is found whole or not at
 * all. Proved: the process never exits, no batch answered 200 is missing, none is stored in part,
 * every request while the database is away is answered (503 with Retry-After, never a 500 or a
 * hang), the first 200 comes within 5 s of the database's return, and the job worker and the search
 * indexer work again afterwards without a restart.
 */

const run = promisify(execFile);
const RESTARTS = Number(process.env.RELIABILITY_DB_RESTARTS ?? 30);
const CLIENTS = 4;
const BATCH = 50;

interface Batch { id: string; client: number; outcome: 'ok' | 'unavailable' | 'network' | 'other'; status?: number }

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

let cluster: TestCluster | undefined;
after(async () => { await cluster?.remove(); });

describe('database restarts during ingest', { timeout: 600_000 }, () => {
  it(`survives ${RESTARTS} immediate database stops with nothing lost, nothing partial and no process restart`, async (t) => {
    cluster = await createCluster('portway-trial-db-');
    const dataDir = await makeTmpDir('portway-trial-db-data-');
    removeWhenDone(dataDir);
    const env = serviceEnv(dataDir, { DATABASE_URL: cluster.url, LOG_LEVEL: 'warn', SEARCH_REFRESH_INTERVAL_MS: '500' });
    const service = await startService({ ...env, LOG_LEVEL: 'info' });
    // On failure, what the service warned about (its info lines are one per request).
    t.after(() => {
      const warnings = service.lines.filter((l) => l.level >= 40).slice(-40);
      if (warnings.length > 0) t.diagnostic(`service warnings:\n${warnings.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${service.stderr().slice(-4000)}`);
    });
    let exited: unknown;
    void service.exited.then((e) => { exited = e; });
    const base = `http://127.0.0.1:${service.port}`;
    const token = (await run(process.execPath, ['bin/portway.js', 'token', 'mint'], { cwd: root, env })).stdout.trim();

    const batches: Batch[] = [];
    const unavailableMs: number[] = [];
    const retryAfterMissing: number[] = [];
    const okAt: number[] = [];
    let stopping = false;
    let sequence = 0;

    const push = async (client: number): Promise<void> => {
      while (!stopping) {
        const id = `${client}-${sequence++}`;
        // Each batch its own master product in 5 colourways of 10 sizes, as a catalogue has them: a
        // colourway growing by every batch grew to ~8,000 variants, each change re-indexing them all.
        const data = Array.from({ length: BATCH }, (_, n) => ({
          sku: `R${id}-${n}`, masterProductNo: `RM${id}`, color: `C${n % 5}`, size: `S${Math.floor(n / 5)}`, name: `batch ${id}`, unitPrice: 10 + n,
        }));
        const batch: Batch = { id, client, outcome: 'other' };
        batches.push(batch);
        const sent = Date.now();
        try {
          const res = await fetch(`${base}/api/integration/catalogue/products`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ source: 'trial', data }),
            signal: AbortSignal.timeout(30_000),
          });
          await res.arrayBuffer();
          batch.status = res.status;
          if (res.status === 200) {
            batch.outcome = 'ok';
            okAt.push(Date.now());
          } else if (res.status === 503) {
            batch.outcome = 'unavailable';
            unavailableMs.push(Date.now() - sent);
            if (!res.headers.get('retry-after')) retryAfterMissing.push(res.status);
            await new Promise((r) => setTimeout(r, 100));
          }
        } catch {
          batch.outcome = 'network';
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };

    const clients = Array.from({ length: CLIENTS }, (_, c) => push(c));
    const firstOkAfterReturn: number[] = [];
    const readyzWhileDown: number[] = [];
    try {
      await waitFor('the first batches', () => okAt.length >= CLIENTS * 2, 60_000);
      for (let restart = 0; restart < RESTARTS; restart++) {
        // Mid-ingest, with batches in flight.
        await new Promise((r) => setTimeout(r, 300 + (restart % 5) * 150));
        await cluster.crash();
        const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) });
        readyzWhileDown.push(ready.status);
        await new Promise((r) => setTimeout(r, 500 + (restart % 3) * 250));
        await cluster.start();
        const back = Date.now();
        const first = await waitFor('a batch answered 200 after the database returned', () => okAt.find((t) => t >= back), 30_000);
        firstOkAfterReturn.push(first - back);
        assert.equal(exited, undefined, `serve exited after restart ${restart + 1}: ${JSON.stringify(exited)}`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      stopping = true;
      await Promise.all(clients);
    }
    assert.equal(exited, undefined, 'serve never exited');

    // What is stored, batch by batch: whole or nothing.
    const db = new pg.Client({ connectionString: cluster.url });
    await db.connect();
    const stored = new Map<string, number>();
    try {
      const { rows } = await db.query<{ name: string; n: string }>(
        "SELECT name, count(*)::text AS n FROM products WHERE name LIKE 'batch %' GROUP BY name",
      );
      for (const row of rows) stored.set(row.name.slice('batch '.length), Number(row.n));
    } finally {
      await db.end();
    }
    const missing = batches.filter((b) => b.outcome === 'ok' && stored.get(b.id) !== BATCH);
    const partial = batches.filter((b) => { const n = stored.get(b.id) ?? 0; return n !== 0 && n !== BATCH; });
    const landedUnconfirmed = batches.filter((b) => b.outcome !== 'ok' && stored.get(b.id) === BATCH);
    const other = batches.filter((b) => b.outcome === 'other');

    // The job worker and the search indexer came back by themselves: a product pushed now is indexed,
    // and an invitation (a job) is mailed.
    const last = await fetch(`${base}/api/integration/catalogue/products`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'trial', data: [{ sku: 'AFTER-1', masterProductNo: 'AFTERM', color: 'Red', size: 'M', name: 'after the restarts' }] }),
    });
    assert.equal(last.status, 200);
    const customer = await fetch(`${base}/api/integration/customer`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'trial', data: [{ account: { accountNo: 'AFTER', name: 'After Pty', status: 'Active' }, admin: { name: 'After Buyer', email: 'after@example.test' } }] }),
    });
    assert.equal(customer.status, 200, await customer.text());
    const check = new pg.Client({ connectionString: cluster.url });
    await check.connect();
    try {
      // The indexer first works through what the clients pushed (~140,000 products, ~20 s here).
      await waitFor('the search indexer to index a product pushed after the restarts', async () =>
        (await check.query("SELECT 1 FROM search_documents WHERE id = 'afterm_red'")).rowCount! > 0, 120_000);
      await waitFor('the invitation job to run after the restarts', async () =>
        (await check.query("SELECT 1 FROM graphile_worker.jobs WHERE task_identifier = 'customers.provision-user'")).rowCount === 0
        && (await check.query("SELECT 1 FROM users WHERE email = 'after@example.test'")).rowCount === 1, 30_000);
    } finally {
      await check.end();
    }
    const errorLines = service.lines.filter((l) => l.level >= 60);

    reportFigures(`database: ${RESTARTS} immediate stops during ingest`, {
      'database stops (SIGQUIT, as pg_ctl stop -m immediate)': RESTARTS,
      'batches sent (50 products each, 4 clients)': batches.length,
      'answered 200': batches.filter((b) => b.outcome === 'ok').length,
      'answered 503 (with Retry-After)': unavailableMs.length,
      'network errors (connection reset by the client side)': batches.filter((b) => b.outcome === 'network').length,
      'other answers': other.length,
      'answered 200 and missing': missing.length,
      'stored in part': partial.length,
      'not confirmed (503 or reset) yet stored whole': landedUnconfirmed.length,
      '503 answer time p50 / max (ms)': `${percentile(unavailableMs, 50)} / ${percentile(unavailableMs, 100)}`,
      '/readyz while the database is down': [...new Set(readyzWhileDown)].join(', '),
      'first 200 after the database returned, p50 / max (ms)': `${percentile(firstOkAfterReturn, 50)} / ${percentile(firstOkAfterReturn, 100)}`,
      'process exits / restarts': 0,
      'fatal log lines': errorLines.length,
      'worker and indexer after the restarts': 'both working',
    });

    assert.deepEqual(missing.map((b) => b.id), [], 'no batch answered 200 is missing');
    assert.deepEqual(partial.map((b) => b.id), [], 'no batch is stored in part');
    assert.deepEqual(other.map((b) => `${b.id}: ${String(b.status)}`), [], 'every answer is 200 or 503');
    assert.deepEqual(retryAfterMissing, [], 'every 503 carries Retry-After');
    assert.ok(Math.max(...firstOkAfterReturn) < 5000, `first 200 within 5 s of the database's return: ${firstOkAfterReturn.join(', ')}`);
    assert.deepEqual([...new Set(readyzWhileDown)], [503]);
    assert.deepEqual(errorLines, []);
    service.child.kill('SIGTERM');
    const end = await service.exited;
    assert.equal(end.code, 0);
  });
});
