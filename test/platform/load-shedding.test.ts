import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/processes.js';

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
  let t: TestApp;
  before(async () => { t = await buildTestApp({ SHED_EVENT_LOOP_DELAY_MS: '1' }); });
  after(async () => { await t.close(); });

  it('answers 503 overloaded with Retry-After while the event loop lags; /healthz and /metrics stay exempt', async () => {
    const stop = busyLoop();
    try {
      await waitFor('the process to be under pressure', () => t.app.isUnderPressure(), 20_000);
      const refused = await t.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
      assert.equal(refused.statusCode, 503, refused.body);
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
    await waitFor('the pressure to pass', () => !t.app.isUnderPressure(), 20_000);
    const answered = await t.app.inject({ method: 'POST', url: '/api/public/v1/products/by-sku', payload: { skus: ['X'] } });
    assert.equal(answered.statusCode, 401, 'past the pressure, the request reaches authentication again');
  });
});
