import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../src/platform/http/problem.js';
import { createWriteGate } from '../../src/platform/http/write-gate.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { capturingLogger, waitFor } from '../helpers/processes.js';

/**
 * Integration writes yield to buyers' reads: at most INTEGRATION_WRITE_CONCURRENCY batch
 * transactions per process, the others wait their turn (bounded in time and number) and are
 * refused with 503 `…:busy` before touching the database when none comes.
 */

/** A promise with its resolve at hand, to hold work open. */
function held(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => { release = resolve; });
  return { promise, release };
}

describe('write gate', () => {
  it('runs at most `concurrency` works at once and admits the waiting ones in arrival order', async () => {
    const gate = createWriteGate({ concurrency: 2, maxWaitMs: 60_000, maxWaiting: 10 });
    const holds = [held(), held(), held(), held()];
    const started: number[] = [];
    const runs = holds.map((h, i) => gate.run(async () => { started.push(i); await h.promise; return i; }));
    await sleep(10);
    assert.deepEqual(started, [0, 1]);
    assert.equal(gate.active, 2);
    assert.equal(gate.waiting, 2);
    holds[1]?.release();
    await waitFor('the third to start', () => started.length === 3);
    assert.deepEqual(started, [0, 1, 2], 'the first waiting one takes the freed turn');
    assert.equal(gate.active, 2);
    holds[0]?.release();
    holds[2]?.release();
    holds[3]?.release();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
    assert.equal(gate.active, 0);
    assert.equal(gate.waiting, 0);
  });

  it('rests a turn after the work at a duty below 100 %: its caller has the answer at once, the next batch waits', async () => {
    const resting = createWriteGate({ concurrency: 1, maxWaitMs: 60_000, maxWaiting: 10, dutyPercent: 10 });
    assert.equal(await resting.run(async () => { await new Promise((r) => setTimeout(r, 20)); return 'done'; }), 'done');
    assert.equal(resting.active, 1, 'the turn is still taken after the answer');
    let next = false;
    const waiting = resting.run(async () => { next = true; });
    assert.equal(resting.waiting, 1);
    assert.equal(next, false);
    await waiting;
    assert.equal(next, true, 'the next batch ran once the rest was over');

    const full = createWriteGate({ concurrency: 1, maxWaitMs: 60_000, maxWaiting: 10, dutyPercent: 100 });
    await full.run(async () => { await new Promise((r) => setTimeout(r, 20)); });
    assert.equal(full.active, 0, 'at 100 % the turn passes on at once');

    const unread = createWriteGate({ concurrency: 1, maxWaitMs: 60_000, maxWaiting: 10, dutyPercent: 10, readsRecently: () => false });
    await unread.run(async () => { await new Promise((r) => setTimeout(r, 20)); });
    assert.equal(unread.active, 0, 'with no reader to yield to, no rest');
  });

  it('frees the turn of a work that fails', async () => {
    const gate = createWriteGate({ concurrency: 1, maxWaitMs: 60_000, maxWaiting: 10 });
    await assert.rejects(gate.run(async () => { throw new Error('boom'); }), /boom/);
    assert.equal(gate.active, 0);
    assert.equal(await gate.run(async () => 'next'), 'next');
  });

  it('refuses with 503 busy, without running the work, one that waited past maxWaitMs', async () => {
    const gate = createWriteGate({ concurrency: 1, maxWaitMs: 50, maxWaiting: 10 });
    const first = held();
    const running = gate.run(() => first.promise);
    let ran = false;
    const error = await gate.run(async () => { ran = true; }).catch((e: unknown) => e);
    assert.ok(error instanceof AppError);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'busy');
    assert.equal(error.headers['retry-after'], '1');
    assert.equal(ran, false);
    assert.equal(gate.waiting, 0, 'the refused one left the queue');
    first.release();
    await running;
    assert.equal(gate.active, 0);
  });

  it('refuses at once when maxWaiting are already waiting', async () => {
    const gate = createWriteGate({ concurrency: 1, maxWaitMs: 60_000, maxWaiting: 1 });
    const first = held();
    const running = gate.run(() => first.promise);
    const second = gate.run(async () => 'second');
    await assert.rejects(gate.run(async () => 'third'), (e: unknown) => e instanceof AppError && e.code === 'busy');
    first.release();
    await running;
    assert.equal(await second, 'second');
  });
});

describe('integration batches through the write gate', () => {
  let t: TestApp;
  const log = capturingLogger();
  before(async () => {
    t = await buildTestApp({ INTEGRATION_WRITE_CONCURRENCY: '2', INTEGRATION_WRITE_WAIT_MS: '300', INTEGRATION_WRITE_QUEUE: '8' }, { logger: log.logger });
  });
  after(async () => { await t.close(); });

  /** Backends of this database waiting for a row lock. */
  const lockWaiters = async () => Number((await t.pool.query(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  )).rows[0].n);

  it('writes at most INTEGRATION_WRITE_CONCURRENCY batches at once; one that waits too long is 503 busy and stores nothing', async () => {
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'GATE-LOCKED', name: 'v0' }])).statusCode, 200);
    const token = await t.token();
    // A writer outside the service holds the row, so every batch naming it blocks inside its transaction.
    const blocker = await t.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM products WHERE sku = 'GATE-LOCKED' FOR UPDATE`);
      const blocked = [1, 2].map((n) => putBatch(t, '/catalogue/products', [{ sku: 'GATE-LOCKED', name: `v${n}` }, { sku: `GATE-A${n}`, name: 'a' }], token));
      await waitFor('both batches to hold their turns', async () => (await lockWaiters()) === 2);

      const refused = await putBatch(t, '/catalogue/products', [{ sku: 'GATE-B', name: 'b' }], token);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      const problem = refused.json();
      assert.equal(problem.type, 'urn:portway:problem:busy');
      assert.equal(problem.status, 503);
      assert.match(problem.detail, /nothing of it was stored/);
      assert.match(problem.detail, /again/);
      assert.equal(problem.instance, '/api/integration/catalogue/products');
      assert.equal((await t.pool.query(`SELECT 1 FROM products WHERE sku = 'GATE-B'`)).rowCount, 0, 'the refused batch stored nothing');
      assert.equal(await lockWaiters(), 2, 'the refused batch never reached the database');
      const refusal = log.lines.find((l) => l.msg === 'request refused under load');
      assert.equal(refusal?.level, 40, 'logged as a warning');
      assert.equal(refusal?.code, 'busy');
      assert.deepEqual(log.lines.filter((l) => l.level >= 50), [], 'no error logged');

      await blocker.query('COMMIT');
      const answers = await Promise.all(blocked);
      for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
    }
    // The same batch sent again once the writers are done is stored.
    const again = await putBatch(t, '/catalogue/products', [{ sku: 'GATE-B', name: 'b' }], token);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal((await t.pool.query(`SELECT 1 FROM products WHERE sku = 'GATE-B'`)).rowCount, 1);
  });

  it('a batch whose items are all rejected needs no turn', async () => {
    const blocker = await t.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM products WHERE sku = 'GATE-LOCKED' FOR UPDATE`);
      const token = await t.token();
      const blocked = [1, 2].map((n) => putBatch(t, '/catalogue/products', [{ sku: 'GATE-LOCKED', name: `w${n}` }], token));
      await waitFor('both batches to hold their turns', async () => (await lockWaiters()) === 2);
      const invalid = await putBatch(t, '/catalogue/products', [{ name: 'no sku' }], token);
      assert.equal(invalid.statusCode, 200, invalid.body);
      assert.equal(invalid.json().data[0].outcome, 'Rejected');
      await blocker.query('COMMIT');
      for (const answer of await Promise.all(blocked)) assert.equal(answer.statusCode, 200, answer.body);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
    }
  });

  it('admin batches share the same turns', async () => {
    const blocker = await t.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM products WHERE sku = 'GATE-LOCKED' FOR UPDATE`);
      const token = await t.token();
      const blocked = [1, 2].map((n) => putBatch(t, '/catalogue/products', [{ sku: 'GATE-LOCKED', name: `x${n}` }], token));
      await waitFor('both batches to hold their turns', async () => (await lockWaiters()) === 2);
      const refused = await putAdmin(t, '/brands', [{ code: 'GATEBRAND', name: 'Gate', restricted: false }]);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json().type, 'urn:portway:problem:busy');
      await blocker.query('COMMIT');
      for (const answer of await Promise.all(blocked)) assert.equal(answer.statusCode, 200, answer.body);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
    }
  });
});
