import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { Type } from 'typebox';
import { createPool } from '../../src/platform/db/pool.js';
import { defineTable } from '../../src/platform/db/upsert.js';
import type { BatchDefinition } from '../../src/platform/batch/definition.js';
import { registerBatchRoute } from '../../src/platform/http/envelope.js';
import { installJsonBodyParser } from '../../src/platform/http/json-body.js';
import { createMetrics } from '../../src/platform/http/metrics.js';
import { installProblemHandlers } from '../../src/platform/http/problem.js';
import { createWriteGate, type WriteGate } from '../../src/platform/http/write-gate.js';
import { requiredString } from '../../src/platform/schema/fields.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

/**
 * The envelope's early write (envelope.ts, `startEarlyWrite`): a definition with `writeJsonAll` has
 * every item of the body written while the service parses and checks them; the write is committed
 * only when every item passed, and otherwise rolled back before the batch is written as usual.
 */

interface Item { code: string; n?: number }
const TABLE = `(code text PRIMARY KEY, n integer,
  created_at timestamptz NOT NULL DEFAULT now(), changed_at timestamptz NOT NULL DEFAULT now())`;

describe('integration envelope: the early write of a batch (writeJsonAll)', () => {
  let db: TestDatabase;
  const table = defineTable({ table: 'early_items', columns: [['code', 'code', 'text'], ['n', 'n', 'integer']], key: ['code'] });
  const calls = { all: 0, json: 0, write: 0 };
  const definition: BatchDefinition<Item> = {
    name: 'test/early',
    itemSchema: Type.Object({ code: requiredString(10), n: Type.Optional(Type.Integer()) }),
    keyFields: ['/code'],
    keyOf: (item) => item.code,
    async write(tx, items) { calls.write += 1; await table.upsert(tx, items); },
    async writeJson(tx, json) { calls.json += 1; await table.upsertJson(tx, json); },
    async writeJsonAll(tx, body) { calls.all += 1; await table.upsertJsonAll(tx, body); },
  };
  const apps: FastifyInstance[] = [];
  async function appWith(gate?: WriteGate, pool = db.pool): Promise<FastifyInstance> {
    const app = Fastify();
    installJsonBodyParser(app);
    installProblemHandlers(app);
    registerBatchRoute(app, '/early', definition, { pool, metrics: createMetrics({ defaultMetrics: false }), writeGate: gate }, { summary: 'test', tags: ['test'] });
    await app.ready();
    apps.push(app);
    return app;
  }
  let app: FastifyInstance;
  const put = (payload: string | object, to = app) =>
    to.inject({ method: 'PUT', url: '/early', headers: { 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const stored = async () => (await db.pool.query<{ code: string; n: number | null }>('SELECT code, n FROM early_items ORDER BY code')).rows;
  /** Transactions left open on the test database by anything but this query (an early write never ended would be one). */
  const openTransactions = async () => Number((await db.pool.query<{ n: string }>(`
    SELECT count(*) AS n FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`)).rows[0]?.n);
  /** The early write of a request answered without its handler is rolled back after the answer: waits for it (bounded). */
  async function noOpenTransaction(): Promise<void> {
    for (let i = 0; i < 100 && (await openTransactions()) > 0; i += 1) await sleep(50);
    assert.equal(await openTransactions(), 0, 'no transaction is left open');
  }

  before(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE early_items ${TABLE}`);
    app = await appWith();
  });
  after(async () => {
    for (const a of apps) await a.close();
    await db.drop();
  });
  beforeEach(async () => {
    await db.pool.query('TRUNCATE early_items');
    Object.assign(calls, { all: 0, json: 0, write: 0 });
  });

  it('every item passing, the early write is what is stored (the last of each key); nothing else writes', async () => {
    const res = await put({ source: 't', data: [{ code: 'C', n: 1 }, { code: 'B', n: 1 }, { code: 'A' }, { code: 'B', n: 2 }] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data.map((r: { key: string }) => r.key), ['C', 'B', 'A', 'B']);
    assert.deepEqual(calls, { all: 1, json: 0, write: 0 });
    assert.deepEqual(await stored(), [{ code: 'A', n: null }, { code: 'B', n: 2 }, { code: 'C', n: 1 }]);
  });

  it('an item rejected, the early write is rolled back and the accepted items written from their picks: nothing of the rejected one is kept', async () => {
    // The database would take the over-long code; only the service's checks refuse it.
    const res = await put({ source: 't', data: [{ code: 'R1', n: 1 }, { code: 'R-TOO-LONG-CODE' }, { code: 'R2' }] });
    assert.deepEqual(res.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Rejected', 'Upserted']);
    assert.deepEqual(calls, { all: 1, json: 1, write: 0 });
    assert.deepEqual(await stored(), [{ code: 'R1', n: 1 }, { code: 'R2', n: null }]);
  });

  it('a request refused whole after its early write began (an envelope without source, a __proto__ member, too many items) stores nothing and leaves no transaction open', async () => {
    const refused = [
      { data: [{ code: 'X1' }] },
      '{"source":"t","data":[{"code":"X2","__proto__":{"n":1}}]}',
      { source: 't', data: Array.from({ length: 1001 }, (_, i) => ({ code: `X${i}` })) },
    ];
    for (const payload of refused) {
      const res = await put(payload);
      assert.ok(res.statusCode === 400 || res.statusCode === 413, `${res.statusCode} ${res.body}`);
      await noOpenTransaction();
    }
    assert.equal(calls.all, 3, 'each began an early write');
    assert.deepEqual(await stored(), []);
  });

  it('a body with a \\u escape is written from its parsed items (PostgreSQL may refuse an escape JavaScript takes)', async () => {
    const res = await put('{"source":"t","data":[{"code":"caf\\u00e9"}]}');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(calls, { all: 0, json: 0, write: 1 });
    assert.deepEqual(await stored(), [{ code: 'café', n: null }]);
  });

  it('when PostgreSQL refuses the JSON text the early write fails, and the batch is written from the parsed items', async () => {
    const res = await put('{"source":"t","data":[{"code":"H1","note":1e999999}]}');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(calls, { all: 1, json: 1, write: 1 });
    assert.deepEqual(await stored(), [{ code: 'H1', n: null }]);
  });

  it('with a write gate of one turn, batches sent at once are each stored, whether written early (a turn was free) or in their turn', async () => {
    const gated = await appWith(createWriteGate({ concurrency: 1, maxWaitMs: 10_000, maxWaiting: 20 }));
    const batches = Array.from({ length: 6 }, (_, b) => ({
      source: 't',
      data: [{ code: `G${b}A`, n: b }, b % 2 === 0 ? { code: `G${b}B` } : { code: `G${b}-REJECTED-CODE` }],
    }));
    const answers = await Promise.all(batches.map((batch) => put(batch, gated)));
    assert.deepEqual(answers.map((r) => r.statusCode), batches.map(() => 200));
    assert.ok(calls.all >= 1, 'the first found the turn free');
    assert.ok(calls.json >= 3, 'the batches with a rejected item were written from their picks');
    const expected = batches.flatMap((batch, b) => [`G${b}A`, ...(b % 2 === 0 ? [`G${b}B`] : [])]).sort();
    assert.deepEqual((await stored()).map((r) => r.code), expected);
    await noOpenTransaction();
  });

  it('with no turn of the gate free, a batch is not written early: it waits for its turn once its items are checked, as before', async () => {
    const gate = createWriteGate({ concurrency: 1, maxWaitMs: 10_000, maxWaiting: 5 });
    const gated = await appWith(gate);
    let release!: () => void;
    const held = gate.run(() => new Promise<void>((resolve) => { release = resolve; }));
    const answer = put({ source: 't', data: [{ code: 'W1' }] }, gated);
    for (let i = 0; i < 100 && gate.waiting === 0; i += 1) await sleep(20);
    assert.equal(gate.waiting, 1, 'the batch waits for the turn');
    assert.deepEqual(calls, { all: 0, json: 0, write: 0 });
    release();
    await held;
    const res = await answer;
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(calls, { all: 0, json: 1, write: 0 });
    assert.deepEqual(await stored(), [{ code: 'W1', n: null }]);
  });

  it('with no connection idle in the pool, a batch is not written early: it waits for one once its items are checked', async () => {
    const small = createPool({ url: db.url, max: 1 });
    try {
      const app1 = await appWith(undefined, small);
      const client = await small.connect();
      const answer = put({ source: 't', data: [{ code: 'P1' }] }, app1);
      for (let i = 0; i < 100 && small.waitingCount === 0; i += 1) await sleep(20);
      assert.equal(small.waitingCount, 1, 'the batch waits for the connection');
      assert.deepEqual(calls, { all: 0, json: 0, write: 0 });
      client.release();
      const res = await answer;
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(calls, { all: 0, json: 1, write: 0 });
      assert.deepEqual(await stored(), [{ code: 'P1', n: null }]);
    } finally {
      await small.end();
    }
  });

  it('writes what the envelope would pick, for any batch: the last item of each key (property)', async () => {
    await db.pool.query(`CREATE TABLE early_picked ${TABLE}`);
    const picked = defineTable({ table: 'early_picked', columns: [['code', 'code', 'text'], ['n', 'n', 'integer']], key: ['code'] });
    const code = fc.constantFrom('a', 'b', 'B', 'é', 'e\u0301', 'z', '\u{1F600}', '\uFF01', 'ab', 'a b');
    const items = fc.array(fc.record({ code, n: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }) }), { maxLength: 12 });
    await fc.assert(fc.asyncProperty(items, async (data) => {
      await db.pool.query('TRUNCATE early_items, early_picked');
      const body = Buffer.from(JSON.stringify({ source: 't', data }));
      const latest = new Map<string, number>();
      data.forEach((item, i) => latest.set(item.code, i));
      const picks = [...latest.keys()].sort().map((k) => latest.get(k) as number);
      await table.upsertJsonAll(db.pool, body);
      await picked.upsertJson(db.pool, { body, picks });
      const a = (await db.pool.query('SELECT code, n FROM early_items ORDER BY code')).rows;
      const b = (await db.pool.query('SELECT code, n FROM early_picked ORDER BY code')).rows;
      assert.deepEqual(a, b);
      assert.equal(a.length, latest.size);
    }), { numRuns: 60 });
  });
});
