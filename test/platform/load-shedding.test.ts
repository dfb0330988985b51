import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { capturingLogger, waitFor } from '../helpers/processes.js';

/**
 * Load shedding: an overloaded process (here: an event-loop delay threshold of 1 ms and a loop kept
 * busy) answers 503 `…:overloaded` with Retry-After at once, before authentication or any database
 * work; /healthz and /metrics still answer.
 */

/** Keeps the event loop busy: ~60 ms of work in every ~70 ms. */
function busyLoop(): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + 60;
    while (Date.now() < until) { /* busy */ }
  }, 10);
  return () => clearInterval(timer);
}

describe('load shedding', () => {
  it('sheds nothing in the first two samples after the start, however late the loop', async () => {
    const fresh = await buildTestApp({ SHED_EVENT_LOOP_DELAY_MS: '1' });
    const stop = busyLoop();
    try {
      await waitFor('the process to be under pressure', () => fresh.app.isUnderPressure(), 20_000);
      const res = await fresh.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
      // Under pressure at the first sample, which measured the start; the request reaches authentication.
      assert.equal(res.statusCode, 401, res.body);
    } finally {
      stop();
      await fresh.close();
    }
  });


  let t: TestApp;
  const log = capturingLogger();
  before(async () => { t = await buildTestApp({ SHED_EVENT_LOOP_DELAY_MS: '1' }, { logger: log.logger }); });
  after(async () => { await t.close(); });

  it('answers 503 overloaded with Retry-After while the event loop lags; /healthz and /metrics stay exempt', async () => {
    const stop = busyLoop();
    try {
      // Past the two samples after the start in which nothing is shed.
      const refused = await waitFor('a request to be shed', async () => {
        const res = await t.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
        return res.statusCode === 503 ? res : undefined;
      }, 20_000);
      assert.ok(t.app.isUnderPressure());
      assert.equal(refused.headers['retry-after'], '2');
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      const problem = refused.json();
      assert.equal(problem.type, 'urn:portway:problem:overloaded');
      assert.equal(problem.instance, '/api/public/v1/products/by-sku');
      assert.match(problem.detail, /again/);

      const batch = await t.app.inject({
        method: 'PUT', url: '/api/integration/catalogue/products',
        headers: { authorization: `Bearer ${await t.token()}` }, payload: { source: 't', data: [{ sku: 'SHED-1' }] },
      });
      assert.equal(batch.statusCode, 503, batch.body);
      assert.equal(batch.json().type, 'urn:portway:problem:overloaded');

      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200, health.body);
      assert.deepEqual(health.json(), { status: 'ok' });
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
      assert.ok(t.app.isUnderPressure(), 'still under pressure while asserting');
    } finally {
      stop();
    }
    assert.equal((await t.pool.query(`SELECT 1 FROM products WHERE sku = 'SHED-1'`)).rowCount, 0, 'a shed batch stores nothing');
    // A shed request is a warning without a stack, not an error: logging a stack each would only add load.
    const shed = log.lines.filter((l) => l.msg === 'request refused under load');
    assert.ok(shed.length >= 2, 'each shed request logged');
    assert.ok(shed.every((l) => l.level === 40 && l.code === 'overloaded' && l.err === undefined));
    assert.deepEqual(log.lines.filter((l) => l.level >= 50), [], 'no error logged');
    await waitFor('the pressure to pass', () => !t.app.isUnderPressure(), 20_000);
    const answered = await t.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
    assert.equal(answered.statusCode, 401, 'past the pressure, the request reaches authentication again');
  });

  it('answers 503 overloaded while more than SHED_DB_WAITING queries wait for a pool connection', async () => {
    const db = await buildTestApp({ SHED_DB_WAITING: '1' });
    const held = [];
    try {
      // Every connection of the pool (10) borrowed, and two queries waiting for one.
      for (let i = 0; i < 10; i += 1) held.push(await db.pool.connect());
      const waiting = [db.pool.query('SELECT 1'), db.pool.query('SELECT 1')];
      assert.equal(db.pool.waitingCount, 2);
      const refused = await waitFor('a request to be shed', async () => {
        const res = await db.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
        return res.statusCode === 503 ? res : undefined;
      }, 20_000);
      assert.equal(refused.json().type, 'urn:portway:problem:overloaded');
      assert.equal(refused.headers['retry-after'], '2');
      assert.equal((await db.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      for (const client of held.splice(0)) client.release();
      await Promise.all(waiting);
      await waitFor('the queue to be gone', () => !db.app.isUnderPressure(), 20_000);
      const answered = await db.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
      assert.equal(answered.statusCode, 401, 'with the queue gone, the request reaches authentication again');
    } finally {
      for (const client of held) client.release();
      await db.close();
    }
  });
});
