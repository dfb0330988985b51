import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createPool } from '../../src/platform/db/pool.js';
import { Type } from 'typebox';
import { prepareBatch, processBatch, type BatchDefinition } from '../../src/platform/http/envelope.js';
import { requiredString } from '../../src/platform/schema/fields.js';
import { AppError } from '../../src/platform/http/problem.js';
import { brandBatch, categoryBatch } from '../../src/modules/catalogue/reference.service.js';
import { productBatch } from '../../src/modules/catalogue/catalogue.service.js';
import { mediaBatch } from '../../src/modules/catalogue/media.service.js';
import { customerBatch } from '../../src/modules/customers/customers.service.js';
import { freightRateBatch, packageTypeBatch, postcodeRouteBatch } from '../../src/modules/freight/freight.service.js';
import { inventoryBatch } from '../../src/modules/inventory/inventory.service.js';
import { ledgerEntryBatch } from '../../src/modules/ledger/ledger.service.js';
import { priceRuleBatch } from '../../src/modules/pricing/pricing.service.js';
import { areaBatch, gstPostingRatesBatch, jurisdictionBatch } from '../../src/modules/tax/tax.service.js';
import { ADMIN_SCOPE } from '../../src/platform/http/integration-auth.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';

const URL = '/api/integration/catalogue/products';

async function skus(t: TestApp): Promise<string[]> {
  const { rows } = await t.pool.query<{ sku: string }>('SELECT sku FROM products ORDER BY sku');
  return rows.map((r) => r.sku);
}

describe('integration envelope: refusals of the whole request', () => {
  let t: TestApp;
  let auth: string;
  before(async () => {
    t = await buildTestApp();
    auth = `Bearer ${await t.token()}`;
  });
  after(async () => { await t.close(); });

  const send = (payload: string | Buffer, contentType = 'application/json') =>
    t.app.inject({ method: 'PUT', url: URL, headers: { authorization: auth, 'content-type': contentType }, payload });

  function assertProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): Record<string, unknown> }, status: number) {
    assert.equal(res.statusCode, status);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const body = res.json();
    assert.equal(body.status, status);
    assert.equal(typeof body.detail, 'string');
    assert.equal(body.correlationId, res.headers['x-correlation-id']);
    return body;
  }

  it('refuses a body that is not JSON with 400', async () => {
    const body = assertProblem(await send('{"source": "erp", "data": ['), 400);
    assert.equal(body.type, 'urn:portway:problem:invalid-json');
  });

  it('refuses a body that is not valid UTF-8 with 400 and stores nothing (RFC 8259 §8.1)', async () => {
    const payload = Buffer.concat([
      Buffer.from('{"source":"erp","data":[{"sku":"U8REPRO","name":"ok'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}]}'),
    ]);
    const body = assertProblem(await send(payload), 400);
    assert.equal(body.type, 'urn:portway:problem:invalid-utf8');
    assert.match(String(body.detail), /UTF-8/);
    const { rows } = await t.pool.query('SELECT 1 FROM products WHERE sku = $1', ['U8REPRO']);
    assert.equal(rows.length, 0);
  });

  it('refuses a body cut inside a multi-byte character, and an overlong or surrogate encoding', async () => {
    for (const bytes of [[0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const payload = Buffer.concat([Buffer.from('{"source":"erp","data":[{"sku":"'), Buffer.from(bytes), Buffer.from('"}]}')]);
      assert.equal(assertProblem(await send(payload), 400).type, 'urn:portway:problem:invalid-utf8', bytes.join(' '));
    }
  });

  it('accepts UTF-8 of every length and a leading byte order mark, storing the text as sent', async () => {
    const name = 'é € 𝄞 ok';
    const payload = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ source: 'erp', data: [{ sku: 'U8-OK', name }] }))]);
    const res = await send(payload);
    assert.equal(res.statusCode, 200, res.body);
    const { rows } = await t.pool.query('SELECT name FROM products WHERE sku = $1', ['U8-OK']);
    assert.equal(rows[0]?.name, name);
    await t.pool.query('DELETE FROM products WHERE sku = $1', ['U8-OK']);
  });

  it('keeps the framework\'s answers to an empty body and a broken JSON text (400)', async () => {
    const empty = assertProblem(await send(''), 400);
    assert.equal(empty.type, 'urn:portway:problem:invalid-json');
    assert.match(String(empty.detail), /Body cannot be empty/);
    const broken = assertProblem(await send('{"source":'), 400);
    assert.match(String(broken.detail), /Body is not valid JSON/);
  });

  it('refuses a __proto__ member anywhere, saying so and where, instead of "not valid JSON"', async () => {
    const cases: Array<[string, string]> = [
      ['{"source":"erp","data":[],"__proto__":{"x":1}}', '/__proto__'],
      ['{"source":"erp","data":[{"sku":"P-1"},{"sku":"P-2","__proto__":{"isAdmin":true}}]}', '/data/1/__proto__'],
      // Spelled with escapes, it is the same member name.
      ['{"source":"erp","data":[{"sku":"P-3","a/b":{"\\u005f_proto__":null}}]}', '/data/0/a~1b/__proto__'],
    ];
    for (const [payload, path] of cases) {
      const body = assertProblem(await send(payload), 400);
      assert.equal(body.type, 'urn:portway:problem:refused-member', payload);
      assert.equal(body.detail, `The body has a member named "__proto__" (at ${path}), which is refused: merged into an object it could replace that object's prototype. Nothing was stored.`);
      assert.deepEqual(body.errors, [{ path, message: 'is a member name that is refused (__proto__)' }]);
    }
    const ctor = assertProblem(await send('{"source":"erp","data":[{"constructor":{"prototype":{"x":1}}}]}'), 400);
    assert.equal(ctor.type, 'urn:portway:problem:refused-member');
    assert.deepEqual(ctor.errors, [{ path: '/data/0/constructor/prototype', message: 'is a member name that is refused (constructor.prototype)' }]);
    assert.deepEqual(await skus(t), []);
  });

  it('finds a __proto__ member however deep it is nested (no stack overflow, no 500)', async () => {
    const depth = 200_000;
    const body = assertProblem(await send(`{"source":"erp","data":[${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}]}`), 400);
    assert.equal(body.type, 'urn:portway:problem:refused-member');
    assert.equal((body.errors as Array<{ path: string }>)[0]?.path, `/data${'/0'.repeat(depth + 1)}/__proto__`);
  });

  it('refuses a JSON body that is not an object with 400', async () => {
    assertProblem(await send('[{"sku":"A"}]'), 400);
    assertProblem(await send('"hello"'), 400);
    assertProblem(await send('null'), 400);
  });

  it('refuses a missing or non-string source with 400 naming /source', async () => {
    const missing = assertProblem(await send(JSON.stringify({ data: [] })), 400);
    assert.deepEqual((missing.errors as Array<{ path: string }>).map((e) => e.path), ['/source']);
    const wrong = assertProblem(await send(JSON.stringify({ source: 42, data: [] })), 400);
    assert.match(String(wrong.detail), /source must be a string/);
  });

  it('refuses a missing or non-array data with 400 naming /data', async () => {
    const missing = assertProblem(await send(JSON.stringify({ source: 'erp' })), 400);
    assert.deepEqual((missing.errors as Array<{ path: string }>).map((e) => e.path), ['/data']);
    const wrong = assertProblem(await send(JSON.stringify({ source: 'erp', data: { sku: 'A' } })), 400);
    assert.match(String(wrong.detail), /data must be an array/);
  });

  it('refuses more than 1,000 items with 413 and stores none of them', async () => {
    const data = Array.from({ length: 1001 }, (_, i) => ({ sku: `BIG-${i}` }));
    assertProblem(await send(JSON.stringify({ source: 'erp', data })), 413);
    assert.deepEqual(await skus(t), []);
  });

  it('refuses a body over 10 MiB with 413', async () => {
    const filler = 'x'.repeat(11 * 1024 * 1024);
    assertProblem(await send(JSON.stringify({ source: 'erp', data: [{ sku: 'A', styleDescription: filler }] })), 413);
  });

  it('refuses a body that is not declared as JSON with 415', async () => {
    assertProblem(await send('source=erp', 'text/plain'), 415);
  });

  it('accepts an empty data array', async () => {
    const res = await send(JSON.stringify({ source: 'erp', data: [] }));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { data: [] });
  });

  it('ignores an unparseable timestamp, which is informational only', async () => {
    const res = await send(JSON.stringify({ source: 'erp', timestamp: 'yesterday', data: [] }));
    assert.equal(res.statusCode, 200);
  });
});

describe('integration envelope: per-item processing', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('answers one result per item in request order, rejecting bad items with JSON-pointer paths', async () => {
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'Z-1', name: 'Zed' },
      { sku: 'A-1', name: 'x'.repeat(101), unitPrice: 'cheap' },
      { name: 'no sku' },
      'not an object',
      { sku: 'M-1' },
    ]);
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.deepEqual(data.map((r: { key: string }) => r.key), ['Z-1', 'A-1', '#2', '#3', 'M-1']);
    assert.deepEqual(data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Rejected', 'Rejected', 'Rejected', 'Upserted']);
    assert.deepEqual(data[1].errors, [
      { path: '/name', message: 'must be at most 100 characters long' },
      { path: '/unitPrice', message: 'must be a decimal number such as "12.5" (digits, optional sign and point)' },
    ]);
    assert.deepEqual(data[2].errors, [{ path: '/sku', message: 'is required' }]);
    assert.deepEqual(data[3].errors, [{ path: '', message: 'must be an object' }]);
    assert.equal(data[0].errors, undefined);
    // Nothing of a rejected item is stored; the good ones are.
    assert.deepEqual(await skus(t), ['M-1', 'Z-1']);
  });

  it('keys a result #<index> when the key itself is invalid', async () => {
    const res = await putBatch(t, '/catalogue/products', [{ sku: 'S'.repeat(21) }, { sku: 12 }, { sku: '' }]);
    const { data } = res.json();
    assert.deepEqual(data.map((r: { key: string }) => r.key), ['#0', '#1', '#2']);
    assert.deepEqual(data[1].errors, [{ path: '/sku', message: 'must be a string' }]);
    assert.deepEqual(data[2].errors, [{ path: '/sku', message: 'must not be empty' }]);
  });

  it('answers every occurrence of a duplicate key and stores the last one', async () => {
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'DUP', name: 'first' },
      { sku: 'OTHER' },
      { sku: 'DUP', name: 'second' },
    ]);
    const { data } = res.json();
    assert.deepEqual(data, [
      { key: 'DUP', outcome: 'Upserted' },
      { key: 'OTHER', outcome: 'Upserted' },
      { key: 'DUP', outcome: 'Upserted' },
    ]);
    const { rows } = await t.pool.query('SELECT name FROM products WHERE sku = $1', ['DUP']);
    assert.equal(rows[0].name, 'second');
  });

  it('stores the last accepted occurrence when a later duplicate is rejected', async () => {
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'DUP2', name: 'good' },
      { sku: 'DUP2', name: 'n'.repeat(200) },
    ]);
    const { data } = res.json();
    assert.deepEqual(data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Rejected']);
    const { rows } = await t.pool.query('SELECT name FROM products WHERE sku = $1', ['DUP2']);
    assert.equal(rows[0].name, 'good');
  });

  it('ignores unknown fields, audit timestamps included', async () => {
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'UNK', name: 'n', createdAt: '2020-01-01T00:00:00Z', modifiedAt: 'x', whatever: { nested: true } },
    ]);
    assert.deepEqual(res.json().data, [{ key: 'UNK', outcome: 'Upserted' }]);
    const { rows } = await t.pool.query('SELECT created_at FROM products WHERE sku = $1', ['UNK']);
    assert.ok(rows[0].created_at.getUTCFullYear() > 2020, 'a sent audit time is not stored');
  });

  it('counts accepted and rejected items per endpoint in /metrics', async () => {
    await putBatch(t, '/catalogue/products', [{ sku: 'MET-1' }, { sku: 'MET-2', blocked: 'no' }]);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /portway_integration_items_total\{endpoint="catalogue\/products",outcome="accepted"\} [1-9]\d*/);
    assert.match(metrics, /portway_integration_items_total\{endpoint="catalogue\/products",outcome="rejected"\} [1-9]\d*/);
  });
});

describe('integration envelope: database failures', () => {
  it('answers 503 with Retry-After and commits nothing when the database cannot take the batch', async () => {
    const t = await buildTestApp({}, { lockTimeoutMs: 200 });
    const blocker = new pg.Client({ connectionString: t.db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      const res = await putBatch(t, '/catalogue/products', [{ sku: 'LOCKED-1' }, { sku: 'LOCKED-2' }]);
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '5');
      assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
      assert.doesNotMatch(res.body, /lock timeout|canceling statement|relation "|SQLSTATE|\.ts:\d/i);
      await blocker.query('ROLLBACK');
      assert.deepEqual(await skus(t), []);
      // The same request succeeds once the database is available again.
      const retry = await putBatch(t, '/catalogue/products', [{ sku: 'LOCKED-1' }, { sku: 'LOCKED-2' }]);
      assert.equal(retry.statusCode, 200);
      assert.deepEqual(await skus(t), ['LOCKED-1', 'LOCKED-2']);
    } finally {
      await blocker.end();
      await t.close();
    }
  });

  it('answers 503 when PostgreSQL is unreachable', async () => {
    const dead = createPool({ url: 'postgres://nobody:x@127.0.0.1:1/none', max: 1 });
    const t = await buildTestApp({}, { pool: dead });
    try {
      const res = await putBatch(t, '/catalogue/products', [{ sku: 'X' }]);
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '5');
    } finally {
      await dead.end();
      await t.close();
    }
  });
});

describe('integration envelope: checkStored, rules that read the stored rows', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  interface Item { code: string; n?: number }
  const itemSchema = Type.Object({ code: requiredString(10) });

  it('runs in the write transaction on the sorted, deduplicated items; the keys it names are Rejected at every accepted occurrence and left out of write', async () => {
    let checked: string[] = [];
    let written: Item[] = [];
    let checkTx: unknown;
    let writeTx: unknown;
    const definition: BatchDefinition<Item> = {
      name: 'test/stored',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      async checkStored(tx, items) {
        checkTx = tx;
        checked = items.map((i) => i.code);
        const { rows } = await tx.query<{ txid: string }>('SELECT pg_current_xact_id()::text AS txid');
        return new Map([['B', [{ path: '/code', message: `is taken (checked in ${rows[0]?.txid ? 'a transaction' : '?'})` }]]]);
      },
      async write(tx, items) { writeTx = tx; written = items; },
    };
    const outcome = await processBatch(prepareBatch(definition), [
      { code: 'C' }, { code: 'B', n: 1 }, {}, { code: 'A' }, { code: 'B', n: 2 },
    ], t.pool);
    assert.deepEqual(checked, ['A', 'B', 'C']);
    assert.deepEqual(written.map((i) => i.code), ['A', 'C']);
    assert.equal(checkTx, writeTx, 'one transaction for the check and the write');
    const taken = { outcome: 'Rejected', errors: [{ path: '/code', message: 'is taken (checked in a transaction)' }] };
    assert.deepEqual(outcome.results, [
      { key: 'C', outcome: 'Upserted' },
      { key: 'B', ...taken },
      { key: '#2', outcome: 'Rejected', errors: [{ path: '/code', message: 'is required' }] },
      { key: 'A', outcome: 'Upserted' },
      { key: 'B', ...taken },
    ]);
    assert.equal(outcome.accepted, 2);
    assert.equal(outcome.rejected, 3);
  });

  it('does not call write when every item is refused', async () => {
    let wrote = false;
    const definition: BatchDefinition<Item> = {
      name: 'test/stored-all',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      checkStored: async (_tx, items) => new Map(items.map((i) => [i.code, [{ path: '/code', message: 'no' }]])),
      async write() { wrote = true; },
    };
    const outcome = await processBatch(prepareBatch(definition), [{ code: 'A' }, { code: 'B' }], t.pool);
    assert.equal(wrote, false);
    assert.deepEqual(outcome.results.map((r) => r.outcome), ['Rejected', 'Rejected']);
    assert.equal(outcome.accepted, 0);
  });

  it('a database failure in the check is a retryable 503 and nothing is written', async () => {
    let wrote = false;
    const definition: BatchDefinition<Item> = {
      name: 'test/stored-fails',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      // A serialization failure (40001): the database could not do it now, the same batch may pass later.
      async checkStored(tx) { await tx.query("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$"); return new Map(); },
      async write() { wrote = true; },
    };
    await assert.rejects(processBatch(prepareBatch(definition), [{ code: 'A' }], t.pool),
      (error: unknown) => error instanceof AppError && error.status === 503);
    assert.equal(wrote, false);
  });

  it('a fault in the check (an undefined table) is not offered as retryable: it stays the database error (500), nothing written', async () => {
    let wrote = false;
    const definition: BatchDefinition<Item> = {
      name: 'test/stored-broken',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      async checkStored(tx) { await tx.query('SELECT * FROM no_such_table'); return new Map(); },
      async write() { wrote = true; },
    };
    await assert.rejects(processBatch(prepareBatch(definition), [{ code: 'A' }], t.pool),
      (error: unknown) => !(error instanceof AppError) && (error as { code?: string }).code === '42P01');
    assert.equal(wrote, false);
  });
});

describe('integration envelope: writing from the request\'s JSON (writeJson)', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  interface Item { code: string; n?: number }
  const itemSchema = Type.Object({ code: requiredString(10) });
  const data = [{ code: 'C' }, { code: 'B', n: 1 }, {}, { code: 'A' }, { code: 'B', n: 2 }];
  const body = Buffer.from(JSON.stringify({ source: 't', data }));

  it('passes the bytes and the indexes of the accepted items, deduplicated (last wins) and in key order; write is not called', async () => {
    const calls: Array<{ body: Buffer | string; picks: readonly number[] }> = [];
    let wrote = false;
    const definition: BatchDefinition<Item> = {
      name: 'test/json',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      async write() { wrote = true; },
      async writeJson(_tx, items) { calls.push(items); },
    };
    const outcome = await processBatch(prepareBatch(definition), data, t.pool, undefined, body);
    assert.equal(wrote, false);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.body, body);
    assert.deepEqual(calls[0]?.picks, [3, 4, 0]);
    assert.deepEqual(outcome.results.map((r) => r.outcome), ['Upserted', 'Upserted', 'Rejected', 'Upserted', 'Upserted']);
  });

  it('without the bytes, or for a definition without writeJson, writes the parsed items', async () => {
    let written: Item[] = [];
    const definition: BatchDefinition<Item> = {
      name: 'test/json-none',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      async write(_tx, items) { written = items; },
      async writeJson() { throw new Error('not expected'); },
    };
    await processBatch(prepareBatch(definition), data, t.pool);
    assert.deepEqual(written, [{ code: 'A' }, { code: 'B', n: 2 }, { code: 'C' }]);
    written = [];
    const { writeJson: _unused, ...plain } = definition;
    await processBatch(prepareBatch(plain), data, t.pool, undefined, body);
    assert.deepEqual(written.map((i) => i.code), ['A', 'B', 'C']);
  });

  it('leaves out of the picks the keys checkStored refuses', async () => {
    let picks: readonly number[] = [];
    const definition: BatchDefinition<Item> = {
      name: 'test/json-stored',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      checkStored: async () => new Map([['B', [{ path: '/code', message: 'no' }]]]),
      async write() { throw new Error('not expected'); },
      async writeJson(_tx, items) { picks = items.picks; },
    };
    const outcome = await processBatch(prepareBatch(definition), data, t.pool, undefined, body);
    assert.deepEqual(picks, [3, 0]);
    assert.equal(outcome.accepted, 2);
  });

  it('when PostgreSQL refuses the JSON text, rolls that transaction back and writes the parsed items instead', async () => {
    await t.pool.query('CREATE TABLE json_fallback (code text PRIMARY KEY)');
    let written: Item[] = [];
    const definition: BatchDefinition<Item> = {
      name: 'test/json-fallback',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      async write(tx, items) {
        written = items;
        await tx.query('INSERT INTO json_fallback SELECT unnest($1::text[])', [items.map((i) => i.code)]);
      },
      async writeJson(tx) {
        await tx.query("INSERT INTO json_fallback VALUES ('from-json')");
        await tx.query("SELECT '[1e999999]'::jsonb"); // value overflows numeric format (22003)
      },
    };
    const outcome = await processBatch(prepareBatch(definition), data, t.pool, undefined, body);
    assert.deepEqual(written.map((i) => i.code), ['A', 'B', 'C']);
    const { rows } = await t.pool.query<{ code: string }>('SELECT code FROM json_fallback ORDER BY code');
    assert.deepEqual(rows.map((r) => r.code), ['A', 'B', 'C'], 'nothing of the refused attempt is kept');
    assert.equal(outcome.accepted, 4);
  });

  it('any other database error stays what it was (no second attempt)', async () => {
    let attempts = 0;
    const definition: BatchDefinition<Item> = {
      name: 'test/json-error',
      itemSchema,
      keyFields: ['/code'],
      keyOf: (item) => item.code,
      async write() { attempts += 1; },
      async writeJson(tx) { attempts += 1; await tx.query('SELECT * FROM no_such_table'); },
    };
    await assert.rejects(processBatch(prepareBatch(definition), data, t.pool, undefined, body),
      (error: unknown) => (error as { code?: string }).code === '42P01');
    assert.equal(attempts, 1);
  });

  it('over HTTP, products sent with a \\u escape, a byte order mark or a number PostgreSQL cannot read are stored all the same', async () => {
    const auth = `Bearer ${await t.token()}`;
    const send = (payload: string | Buffer) => t.app.inject({
      method: 'PUT', url: URL, headers: { authorization: auth, 'content-type': 'application/json' }, payload,
    });
    const escaped = await send('{"source":"t","data":[{"sku":"J-ESC","name":"caf\\u00e9 \\"q\\" \\\\ \\n"},{"sku":"J-NUL","name":"a\\u0000b"}]}');
    assert.deepEqual(escaped.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Rejected']);
    const bom = await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"source":"t","data":[{"sku":"J-BOM","name":"Fußball ™"}]}')]));
    assert.equal(bom.statusCode, 200, bom.body);
    // An unknown member is ignored by the service, but PostgreSQL refuses the JSON text that holds it.
    const huge = await send('{"source":"t","data":[{"sku":"J-HUGE","name":"n","note":1e999999},{"sku":"J-BAD","unitPrice":1e999999}]}');
    assert.deepEqual(huge.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Rejected']);
    const { rows } = await t.pool.query<{ sku: string; name: string }>("SELECT sku, name FROM products WHERE sku LIKE 'J-%' ORDER BY sku");
    assert.deepEqual(rows, [
      { sku: 'J-BOM', name: 'Fußball ™' },
      { sku: 'J-ESC', name: 'café "q" \\ \n' },
      { sku: 'J-HUGE', name: 'n' },
    ]);
  });
});

/**
 * Every batch endpoint with one valid item that holds every nested object and array of its schema,
 * so that each string field of the schema (however deep) can be replaced in turn.
 */
const ENDPOINTS: Array<{ url: string; definition: BatchDefinition<never>; sample: Record<string, unknown>; codes: string[]; admin?: true }> = [
  { url: '/catalogue/products', definition: productBatch, sample: { sku: 'S-1' }, codes: ['/sku'] },
  {
    url: '/catalogue/media',
    definition: mediaBatch,
    sample: { masterProductNo: 'M-1', color: 'Red', images: [{ url: 'https://cdn.example.com/m-1.jpg', alt: 'M-1 in red' }] },
    codes: ['/masterProductNo', '/color', '/images/0/url'],
  },
  {
    url: '/customer',
    definition: customerBatch,
    sample: {
      account: { accountNo: 'C-1', name: 'One', status: 'Active' },
      shipToAddresses: [{ shipToCode: 'ST-1' }],
      admin: { name: 'Ada', email: 'ada@example.com' },
    },
    codes: ['/account/accountNo', '/account/name', '/shipToAddresses/0/shipToCode', '/admin/name'],
  },
  {
    url: '/customer/ledger',
    definition: ledgerEntryBatch,
    sample: {
      entryNo: 1, accountNo: 'C-1', documentNo: 'D-1', documentType: 'Invoice', originType: 'Erp',
      documentDate: '2026-01-31', postingDate: '2026-01-31',
    },
    codes: ['/entryNo', '/accountNo', '/documentNo'],
  },
  {
    url: '/fulfilment/postcode-routing',
    definition: postcodeRouteBatch,
    sample: { id: 'P-1', countryRegionCode: 'NZ', postcode: '1010', defaultMethod: 'Road' },
    codes: ['/id', '/countryRegionCode', '/postcode'],
  },
  {
    url: '/fulfilment/freight-rates',
    definition: freightRateBatch,
    sample: { id: 'R-1', countryRegionCode: 'NZ', shippingAgentCode: 'NZP', shippingAgentServiceCode: 'STD' },
    codes: ['/id', '/countryRegionCode', '/shippingAgentCode', '/shippingAgentServiceCode'],
  },
  { url: '/fulfilment/airbags', definition: packageTypeBatch, sample: { id: 'B-1', countryRegionCode: 'NZ' }, codes: ['/id', '/countryRegionCode'] },
  {
    url: '/inventory',
    definition: inventoryBatch,
    sample: { sku: 'S-1', locations: [{ locationCode: 'L-1', onHand: 1, incoming: [{ quantity: 1, expectedDate: '2026-01-31' }] }] },
    codes: ['/sku', '/locations/0/locationCode'],
  },
  {
    url: '/pricing/rules',
    definition: priceRuleBatch,
    sample: { ruleId: 'R-1', sourceType: 'AllCustomers', sku: 'S-1', amountType: 'Price', unitPrice: 1 },
    codes: ['/ruleId'],
  },
  {
    url: '/tax/jurisdictions',
    definition: jurisdictionBatch,
    sample: { code: 'J-1', rates: [{ taxGroupCode: 'G-1', ratePercent: 10 }] },
    codes: ['/code', '/rates/0/taxGroupCode'],
  },
  { url: '/tax/areas', definition: areaBatch, sample: { code: 'A-1', jurisdictionCodes: ['J-1'] }, codes: ['/code', '/jurisdictionCodes/0'] },
  {
    url: '/tax/gst-posting-rates',
    definition: gstPostingRatesBatch,
    sample: { rates: [{ businessPostingGroup: 'B-1', productPostingGroup: 'P-1', ratePercent: 15 }] },
    codes: ['/rates/0/businessPostingGroup', '/rates/0/productPostingGroup'],
  },
  { url: '/categories', definition: categoryBatch, sample: { code: 'CAT-1', name: 'One', parentCode: 'CAT-0' }, codes: ['/code', '/name', '/parentCode'], admin: true },
  { url: '/brands', definition: brandBatch, sample: { code: 'BR-1', name: 'One', restricted: false }, codes: ['/code', '/name'], admin: true },
];

interface SchemaNode { type?: string | string[]; properties?: Record<string, SchemaNode>; items?: SchemaNode }

const allows = (node: SchemaNode, type: string) => (Array.isArray(node.type) ? node.type.includes(type) : node.type === type);

/** JSON pointers of every string-typed field of `schema`, descending into the sample's nested objects and first array elements. */
function stringFields(schema: SchemaNode, sample: unknown, path = ''): string[] {
  if (allows(schema, 'string')) return [path];
  if (schema.properties) {
    return Object.entries(schema.properties).flatMap(([name, child]) =>
      stringFields(child, (sample as Record<string, unknown> | undefined)?.[name], `${path}/${name}`));
  }
  if (schema.items) {
    assert.ok(Array.isArray(sample) && sample.length > 0, `the sample holds an element of ${path}`);
    return stringFields(schema.items, sample[0], `${path}/0`);
  }
  return [];
}

/** A copy of `sample` with the value at `pointer` replaced (parents are in the sample, as stringFields asserts). */
function withValue(sample: Record<string, unknown>, pointer: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(sample);
  const steps = pointer.split('/').slice(1);
  let node = copy as Record<string, unknown>;
  for (const step of steps.slice(0, -1)) node = node[step] as Record<string, unknown>;
  node[steps.at(-1) as string] = value;
  return copy;
}

describe('every batch endpoint: a text PostgreSQL cannot store, or a blank code, is a problem of its item', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  /** Integration endpoints through putBatch; the admin surface's with an admin token. */
  const send = async (url: string, data: unknown[], admin?: true) => (admin
    ? t.app.inject({
      method: 'PUT', url: `/api/admin${url}`,
      headers: { authorization: `Bearer ${await t.token({ scope: ADMIN_SCOPE })}` },
      payload: { source: 'test-erp', data },
    })
    : putBatch(t, url, data));

  for (const { url, definition, sample, codes, admin } of ENDPOINTS) {
    it(`${url}: a key, code or required name of white space only rejects that item naming the field`, async () => {
      const blanks = ['   ', '\t\n', '\u00a0\u3000'];
      const cases = codes.flatMap((field) => blanks.map((blank) => ({ field, item: withValue(sample, field, blank) })));
      const res = await send(url, [sample, ...cases.map((c) => c.item)], admin);
      assert.equal(res.statusCode, 200, res.body);
      const results = res.json().data as Array<{ key: string; outcome: string; errors?: Array<{ path: string; message: string }> }>;
      assert.equal(results[0]?.outcome, 'Upserted', `the sample itself is valid: ${JSON.stringify(results[0])}`);
      cases.forEach(({ field }, i) => {
        const result = results[i + 1];
        assert.equal(result?.outcome, 'Rejected', `${field}: ${JSON.stringify(result)}`);
        const error = result?.errors?.find((e) => e.path === field);
        assert.ok(error, `${field} is named: ${JSON.stringify(result?.errors)}`);
        if (field !== '/entryNo') assert.equal(error.message, 'must not be blank (white space only)');
        if (definition.keyFields.includes(field)) assert.equal(result?.key, `#${i + 1}`, 'a blank key is no key');
      });
    });

    it(`${url}: a NUL in any string field rejects that item naming the field; the batch is answered 200`, async () => {
      const fields = stringFields(definition.itemSchema as SchemaNode, sample);
      assert.ok(fields.length > 0);
      const res = await send(url, [sample, ...fields.map((f) => withValue(sample, f, 'a\u0000b'))], admin);
      assert.equal(res.statusCode, 200, res.body);
      const results = res.json().data as Array<{ outcome: string; errors?: Array<{ path: string; message: string }> }>;
      assert.equal(results[0]?.outcome, 'Upserted', `the sample itself is valid: ${JSON.stringify(results[0])}`);
      fields.forEach((field, i) => {
        const result = results[i + 1];
        assert.equal(result?.outcome, 'Rejected', `${field}: ${JSON.stringify(result)}`);
        assert.ok(result?.errors?.some((e) => e.path === field), `${field} is named: ${JSON.stringify(result?.errors)}`);
      });
    });
  }
});
