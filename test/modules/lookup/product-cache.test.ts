import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { decodeStock, encodeStock, stockOf } from '../../../src/modules/inventory/stock.js';
import { gs1CheckDigit } from '../../../src/modules/lookup/ean.js';
import { CHANGES_SCANNED, findLookupBatch, type LookupProductRow } from '../../../src/modules/lookup/lookup.repository.js';
import { lookupProducts } from '../../../src/modules/lookup/lookup.service.js';
import {
  LookupProductCache, MAX_CHECK_AGE_MS, PRICES_KEPT_PER_PRODUCT, heldBytes, type HeldKey, type LookupKind,
} from '../../../src/modules/lookup/product-cache.js';
import { PriceRuleCache, type RuleSet } from '../../../src/modules/pricing/rule-cache.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

const ean13 = (body12: string): string => `${body12}${gs1CheckDigit(body12)}`;
const EAN_A = ean13('930000000101');
const EAN_B = ean13('930000000102');

describe('the lookup product cache on the database', () => {
  let t: TestApp;
  let rules: PriceRuleCache;
  let clock = 0;
  let cache: LookupProductCache;
  const deps = () => ({ pool: t.pool, currency: 'AUD', rules, products: cache, now: () => new Date('2026-11-22T00:00:00Z') });
  /** The keys the next call would read in full, and the held ones it would only check. */
  const planned = (kind: LookupKind, keys: string[]) => {
    const { request } = cache.plan(kind, keys);
    return { missing: request.missing, held: request.held.map((h) => h.key) };
  };
  /**
   * The next transaction id to be assigned (`pg_snapshot_xmax`): every write this file made so far
   * has a lower id and every later one a higher one. A check normally uses the snapshot's xmin,
   * which any transaction still open anywhere in the cluster holds back (other test files run in
   * other databases of it), so which keys the database reads again would depend on them. `reread`
   * records its keys as checked at this point instead; `older` below holds the xmin back on purpose.
   */
  const nextXid = async () => BigInt((await t.pool.query<{ xid: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid')).rows[0]?.xid ?? '0');
  const lookup = (kind: LookupKind, keys: string[], account = 'C1') => lookupProducts(deps(), account, kind, keys);
  /** Runs one call's statement as the lookup does and returns the keys the database read again. */
  const reread = async (kind: LookupKind, keys: string[]) => {
    const settled = await nextXid();
    const plan = cache.plan(kind, keys);
    const batch = await findLookupBatch(t.pool, 'C1', kind, plan.request);
    cache.settle(kind, plan, { ...batch, snapshotXmin: settled });
    return [...batch.read.keys()].sort();
  };
  /** The products held for a key, as decoded objects: the same object means it was not decoded again. */
  const heldProducts = (kind: LookupKind, key: string) => cache.plan(kind, [key]).held.get(key)?.products ?? [];
  /**
   * A transaction with an id, left open until `end`: every snapshot's xmin stays at or below it, as
   * a long import, a pg_dump or a transaction in another database of the cluster keeps it.
   */
  const older = async () => {
    const client = new pg.Client({ connectionString: t.db.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
    return { end: async () => { await client.query('ROLLBACK'); await client.end(); } };
  };
  const put = async (url: string, data: unknown[]) => assert.equal((await putBatch(t, url, data)).statusCode, 200);

  before(async () => {
    t = await buildTestApp();
    rules = new PriceRuleCache(t.pool);
    await put('/customer', [
      { account: { accountNo: 'C1', name: 'One', status: 'Active' } },
      { account: { accountNo: 'C2', name: 'Two', status: 'Active', allowedBrands: 'LUMA' } },
    ]);
  });
  after(async () => { await t.close(); });

  beforeEach(async () => {
    clock = 1_000_000;
    cache = new LookupProductCache(1_000, () => clock);
    await t.pool.query('DELETE FROM inventory_locations');
    await t.pool.query('DELETE FROM inventory_items');
    await t.pool.query('DELETE FROM products');
    await t.pool.query('DELETE FROM brands');
    await t.pool.query('DELETE FROM catalogue_media');
    await put('/catalogue/products', [
      { sku: 'A-1', name: 'Alpha', ean: EAN_A, unitPrice: 10, brandCode: 'LUMA' },
      { sku: 'B-1', name: 'Beta', ean: EAN_B, unitPrice: 20 },
    ]);
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 3 }] }]);
    await t.pool.query("INSERT INTO brands (code, name, restricted) VALUES ('LUMA', 'Luma', false)");
  });

  it('reads a key once, then only checks it: an unchanged key is not read again', async () => {
    assert.deepEqual(planned('sku', ['A-1', 'B-1']), { missing: ['A-1', 'B-1'], held: [] });
    assert.deepEqual(await reread('sku', ['A-1', 'B-1', 'NOPE']), ['A-1', 'B-1', 'NOPE']);
    assert.deepEqual(planned('sku', ['A-1', 'B-1', 'NOPE']), { missing: ['NOPE'], held: ['A-1', 'B-1'] }, 'an unknown key is never held');
    assert.deepEqual(await reread('sku', ['A-1', 'B-1', 'NOPE']), ['NOPE']);
    assert.deepEqual(await reread('ean', [EAN_A]), [EAN_A], 'SKUs and EANs are held apart');
    assert.deepEqual(await reread('ean', [EAN_A]), []);
  });

  it('reads again a key whose product, stock or brand was written since, and only that key', async () => {
    await reread('sku', ['A-1', 'B-1']);
    await put('/catalogue/products', [{ sku: 'B-1', name: 'Beta 2', ean: EAN_B, unitPrice: 20 }]);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['B-1']);
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 4 }] }]);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1']);
    await t.pool.query("UPDATE brands SET restricted = true WHERE code = 'LUMA'");
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1']);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), []);
  });

  it('reads again the keys of a master product whose pictures were written since, and answers the colourway\'s pictures, else the master product\'s', async () => {
    const image = (name: string, alt?: string) => ({ url: `https://cdn.example.com/${name}.jpg`, ...(alt === undefined ? {} : { alt }) });
    await put('/catalogue/products', [
      { sku: 'M-1', masterProductNo: 'MX 1', name: 'Em red', color: 'Navy Blue', unitPrice: 1 },
      { sku: 'M-2', masterProductNo: 'MX 1', name: 'Em blue', color: 'Blue', unitPrice: 1 },
    ]);
    const keys = ['M-1', 'M-2', 'B-1'];
    const images = async () => (await lookup('sku', keys)).map((r) => r.value?.images);
    assert.deepEqual(await reread('sku', keys), [...keys].sort());
    assert.deepEqual(await reread('sku', keys), []);
    assert.deepEqual(await images(), [[], [], []]);

    // The colourway's own pictures, sent under the key as the search key rule folds it.
    await put('/catalogue/media', [{ masterProductNo: 'mx_1', color: 'navy/blue', images: [image('front', 'Front "view"'), image('back')] }]);
    assert.deepEqual(await reread('sku', keys), ['M-1', 'M-2'], 'every key of the master product, no other');
    const m2 = heldProducts('sku', 'M-2')[0];
    assert.deepEqual(await images(), [[
      { url: 'https://cdn.example.com/front.jpg', alt: 'Front "view"' }, { url: 'https://cdn.example.com/back.jpg', alt: null },
    ], [], []]);
    assert.equal(heldProducts('sku', 'M-2')[0], m2, 'a colourway whose pictures did not change keeps what it decoded');

    // The master product's pictures: for every colourway without its own.
    await put('/catalogue/media', [{ masterProductNo: 'MX 1', images: [image('flat')] }]);
    assert.deepEqual((await images()).map((list) => list?.map((i) => i.url)), [
      ['https://cdn.example.com/front.jpg', 'https://cdn.example.com/back.jpg'], ['https://cdn.example.com/flat.jpg'], [],
    ]);
    // Emptied, the colourway falls back to them; sent again unchanged, nothing is read again.
    await put('/catalogue/media', [{ masterProductNo: 'MX 1', color: 'Navy Blue', images: [] }]);
    assert.deepEqual((await images()).map((list) => list?.map((i) => i.url)), [['https://cdn.example.com/flat.jpg'], ['https://cdn.example.com/flat.jpg'], []]);
    await reread('sku', keys);
    await put('/catalogue/media', [{ masterProductNo: 'MX 1', color: 'Navy Blue', images: [] }]);
    assert.deepEqual(await reread('sku', keys), []);
  });

  it('does not read again after an identical re-send, which writes nothing', async () => {
    await reread('sku', ['A-1', 'B-1']);
    await put('/catalogue/products', [{ sku: 'B-1', name: 'Beta', ean: EAN_B, unitPrice: 20 }]);
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 3 }] }]);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), []);
  });

  it('answers with what was committed before the call: name, stock and brand visibility', async () => {
    const [first] = await lookup('sku', ['A-1']);
    assert.equal(first?.value?.name, 'Alpha');
    assert.equal(first?.value?.stock.onHand, 3);
    await put('/catalogue/products', [{ sku: 'A-1', name: 'Alpha 2', ean: EAN_A, unitPrice: 10, brandCode: 'LUMA' }]);
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 9 }] }]);
    const [second] = await lookup('sku', ['A-1']);
    assert.equal(second?.value?.name, 'Alpha 2');
    assert.equal(second?.value?.stock.onHand, 9);
    // C1 lists no brands, so a restricted brand hides the product; C2 lists LUMA and still sees it.
    await t.pool.query("UPDATE brands SET restricted = true WHERE code = 'LUMA'");
    assert.equal((await lookup('sku', ['A-1']))[0]?.found, false);
    assert.equal((await lookup('sku', ['A-1'], 'C2'))[0]?.found, true);
  });

  it('by EAN, follows a code to a product that takes it or gives it up', async () => {
    assert.equal((await lookup('ean', [EAN_A]))[0]?.value?.sku, 'A-1');
    // A variant earlier in SKU order now carries the same code: it answers for it.
    await put('/catalogue/products', [{ sku: 'A-0', name: 'Alpha zero', ean: EAN_A, unitPrice: 5 }]);
    assert.equal((await lookup('ean', [EAN_A]))[0]?.value?.sku, 'A-0');
    // Both give the code up: it names nothing any more.
    await put('/catalogue/products', [
      { sku: 'A-0', name: 'Alpha zero', ean: ean13('930000000103'), unitPrice: 5 },
      { sku: 'A-1', name: 'Alpha', ean: ean13('930000000104'), unitPrice: 10, brandCode: 'LUMA' },
    ]);
    assert.deepEqual(await lookup('ean', [EAN_A]), [{ key: EAN_A, found: false, value: null }]);
    assert.equal(planned('ean', [EAN_A]).missing.length, 1, 'a code that names nothing is no longer held');
  });

  it('forgets everything held after a delete or a truncate, which leave no changed row behind', async () => {
    await reread('sku', ['A-1', 'B-1']);
    await t.pool.query("DELETE FROM products WHERE sku = 'B-1'");
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1', 'B-1']);
    assert.deepEqual(await reread('sku', ['A-1']), [], 'held again once read after the delete');
    assert.deepEqual((await lookup('sku', ['A-1', 'B-1'])).map((r) => r.found), [true, false]);
    await t.pool.query('TRUNCATE inventory_items CASCADE');
    const [a] = await lookup('sku', ['A-1']);
    assert.deepEqual(a?.value?.stock, { onHand: 0, reserved: 0, byLocation: [], incoming: [] });
  });

  it('reads a key again when it has not been checked for MAX_CHECK_AGE_MS, keeping what did not change', async () => {
    await reread('sku', ['A-1', 'B-1']);
    const [a] = heldProducts('sku', 'A-1');
    const [b] = heldProducts('sku', 'B-1');
    clock += MAX_CHECK_AGE_MS - 1;
    assert.deepEqual(await reread('sku', ['A-1']), [], 'checked, not read');
    clock += MAX_CHECK_AGE_MS - 1;
    assert.deepEqual(planned('sku', ['A-1', 'B-1']), { missing: ['B-1'], held: ['A-1'] }, 'the check renewed A-1 only');
    clock += MAX_CHECK_AGE_MS + 1;
    assert.deepEqual(planned('sku', ['A-1', 'B-1']), { missing: ['A-1', 'B-1'], held: [] });
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 8 }] }]);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1', 'B-1']);
    assert.notEqual(heldProducts('sku', 'A-1')[0], a, 'changed stock: decoded again');
    assert.equal(decodeStock(heldProducts('sku', 'A-1')[0]?.stock ?? '').onHand, 8);
    assert.equal(heldProducts('sku', 'B-1')[0], b, 'unchanged: the held product is kept');
  });

  it('keeps the decoded products of keys read again only because an older transaction is open', async () => {
    const open = await older();
    try {
      // Every row of the test newer than the open transaction, so which keys are read again does not
      // depend on what else runs in the cluster: all of them, on every call.
      await put('/catalogue/products', [
        { sku: 'A-1', name: 'Alpha 2', ean: EAN_A, unitPrice: 10, brandCode: 'LUMA' },
        { sku: 'B-0', name: 'Beta zero', ean: ean13('930000000105'), unitPrice: 5 },
        { sku: 'B-1', name: 'Beta 2', ean: EAN_B, unitPrice: 20 },
      ]);
      await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 4 }] }]);
      await t.pool.query("UPDATE brands SET name = 'Luma 2' WHERE code = 'LUMA'");
      assert.deepEqual((await lookup('sku', ['A-1', 'B-1'])).map((r) => r.value?.name), ['Alpha 2', 'Beta 2']);
      assert.equal((await lookup('ean', [EAN_B]))[0]?.value?.sku, 'B-1');
      const [a] = heldProducts('sku', 'A-1');
      const [b] = heldProducts('sku', 'B-1');
      const [byEan] = heldProducts('ean', EAN_B);
      const checked = cache.plan('sku', ['A-1', 'B-1']);
      assert.deepEqual(checked.request.missing, [], 'both held, only checked');
      assert.deepEqual([...(await findLookupBatch(t.pool, 'C1', 'sku', checked.request)).read.keys()], ['A-1', 'B-1'], 'yet read again');
      assert.deepEqual((await lookup('sku', ['A-1', 'B-1'])).map((r) => r.value?.name), ['Alpha 2', 'Beta 2']);
      assert.equal(heldProducts('sku', 'A-1')[0], a, 'read again, same rows: the held product is kept');
      assert.equal(heldProducts('sku', 'B-1')[0], b);
      // A variant earlier in SKU order takes the code: read, decoded and answering; B-1 is kept.
      await put('/catalogue/products', [{ sku: 'B-0', name: 'Beta zero', ean: EAN_B, unitPrice: 5 }]);
      assert.equal((await lookup('ean', [EAN_B]))[0]?.value?.sku, 'B-0');
      assert.deepEqual(heldProducts('ean', EAN_B).map((p) => p.sku), ['B-0', 'B-1']);
      assert.equal(heldProducts('ean', EAN_B)[1], byEan);
      // Its stock written: decoded again, with the new stock.
      await put('/inventory', [{ sku: 'B-1', locations: [{ locationCode: 'SYD', onHand: 6 }] }]);
      assert.equal((await lookup('sku', ['B-1']))[0]?.value?.stock.onHand, 6);
      assert.notEqual(heldProducts('sku', 'B-1')[0], b);
    } finally {
      await open.end();
    }
  });

  it(`past ${CHANGES_SCANNED} changes since, checks each held key by itself: reads again only what changed`, async () => {
    let round = 0;
    /** More unrelated products written than the statement scans. */
    const flood = async () => {
      round += 1;
      await t.pool.query(`INSERT INTO products (sku, name, ean) SELECT 'GEN-${round}-' || n, 'generated', NULL FROM generate_series(1, ${CHANGES_SCANNED + 1}) AS n`);
    };
    await reread('sku', ['A-1', 'B-1']);
    await reread('ean', [EAN_A, EAN_B]);
    await flood();
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), [], 'nothing of theirs changed');
    // Each change is written after a flood, so it is past what the statement scans in change order.
    await flood();
    await put('/catalogue/products', [{ sku: 'A-0', name: 'Alpha zero', ean: EAN_A, unitPrice: 5 }]);
    assert.deepEqual(await reread('ean', [EAN_A, EAN_B]), [EAN_A], 'a new product takes the code');
    await flood();
    await put('/catalogue/products', [{ sku: 'B-1', name: 'Beta 2', ean: EAN_B, unitPrice: 20 }]);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['B-1'], 'the product written');
    assert.deepEqual(await reread('ean', [EAN_A, EAN_B]), [EAN_B], 'the product carrying the code written');
    await flood();
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 4 }] }]);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1'], 'its stock written');
    await flood();
    await t.pool.query("UPDATE brands SET restricted = true WHERE code = 'LUMA'");
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1'], 'its brand written');
    assert.equal((await lookup('sku', ['A-1']))[0]?.found, false, 'and answered as written: C1 does not see a restricted brand');
    await flood();
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), [], 'checked from the new point on');
    assert.equal((await lookup('ean', [EAN_A]))[0]?.value?.sku, 'A-0');
    await put('/catalogue/products', [{ sku: 'M-1', masterProductNo: 'MX', name: 'Em', color: 'Red', unitPrice: 1 }]);
    await reread('sku', ['M-1', 'B-1']);
    await flood();
    await put('/catalogue/media', [{ masterProductNo: 'MX', images: [{ url: 'https://cdn.example.com/mx.jpg' }] }]);
    assert.deepEqual(await reread('sku', ['M-1', 'B-1']), ['M-1'], 'the pictures of its master product written');
    assert.equal((await lookup('sku', ['M-1']))[0]?.value?.images[0]?.url, 'https://cdn.example.com/mx.jpg');
  });

  it('is checked in the same statement as the account: still one query a call', async () => {
    let queries = 0;
    const pool = new Proxy(t.pool, {
      get(target, prop, receiver) {
        if (prop === 'query') return (...args: unknown[]) => { queries += 1; return (target.query as (...a: unknown[]) => unknown)(...args); };
        return Reflect.get(target, prop, receiver);
      },
    });
    await rules.atLeast(0n);
    await lookupProducts({ ...deps(), pool }, 'C1', 'sku', ['A-1', 'B-1']);
    await put('/inventory', [{ sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 1 }] }]);
    await lookupProducts({ ...deps(), pool }, 'C1', 'sku', ['A-1', 'B-1']);
    assert.equal(queries, 2);
  });
});

describe('the lookup product cache, without a database', () => {
  const product = (sku: string, version = '1//', stock: string | null = null): LookupProductRow => ({
    sku, ean: null, master_product_no: null, name: sku, size: null, color: null, unit_price: '1', blocked: false,
    brand_code: null, item_discount_group: null, brand_restricted: false, stock_json: stock, images_json: null, version,
  });

  it('keeps a held product read again with the same version, with its kept prices; decodes one whose version differs', () => {
    const cache = new LookupProductCache(10, () => 0);
    cache.settle('ean', cache.plan('ean', ['E']), { snapshotXmin: 1n, deletions: '0', read: new Map([['E', [product('A', '5/6/'), product('B', '5//')]]]) });
    const [a, b] = cache.plan('ean', ['E']).held.get('E')?.products ?? [];
    assert.ok(a && b);
    a.prices = [{ account: 'account', rules: {} as RuleSet, window: { from: 0, until: 1 }, unitPrice: '1.0000' }];
    const settled = cache.settle('ean', cache.plan('ean', ['E']), {
      snapshotXmin: 2n, deletions: '0', read: new Map([['E', [product('A', '5/6/'), product('B', '5//7')]]]),
    });
    const [a2, b2] = settled.get('E')?.products ?? [];
    assert.equal(a2, a, 'same rows: the same object, kept prices and all');
    assert.equal(a2?.prices.length, 1);
    assert.notEqual(b2, b, 'its brand row was written: decoded again');
    assert.equal(b2?.prices.length, 0);
    // A variant joins the code: the others are kept; the entry now lists all of them.
    cache.settle('ean', cache.plan('ean', ['E']), {
      snapshotXmin: 3n, deletions: '0', read: new Map([['E', [product('0', '8//'), product('A', '5/6/'), product('B', '5//7')]]]),
    });
    const [zero, a3, b3] = cache.plan('ean', ['E']).held.get('E')?.products ?? [];
    assert.deepEqual([zero?.sku, a3, b3], ['0', a, b2]);
  });

  it('does not keep an answer read before a delete it has already seen, but still answers with it', () => {
    const cache = new LookupProductCache(10, () => 0);
    const first = cache.plan('sku', ['A']);
    cache.settle('sku', first, { snapshotXmin: 10n, deletions: '2', read: new Map([['A', [product('A')]]]) });
    const late = cache.plan('sku', ['B']);
    const answered = cache.settle('sku', late, { snapshotXmin: 9n, deletions: '1', read: new Map([['B', [product('B')]]]) });
    assert.equal(answered.get('B')?.products[0]?.sku, 'B');
    assert.deepEqual(cache.plan('sku', ['A', 'B']).request.missing, ['B']);
  });

  it('drops everything held when the deletion count grows, and only raises the point a key is known current at', () => {
    const cache = new LookupProductCache(10, () => 0);
    cache.settle('sku', cache.plan('sku', ['A']), { snapshotXmin: 10n, deletions: '0', read: new Map([['A', [product('A')]]]) });
    const plan = cache.plan('sku', ['A']);
    assert.equal(plan.request.since, 10n);
    cache.settle('sku', plan, { snapshotXmin: 7n, deletions: '0', read: new Map() });
    assert.equal(cache.plan('sku', ['A']).request.since, 10n, 'an older snapshot does not lower it');
    cache.settle('sku', cache.plan('sku', ['A']), { snapshotXmin: 12n, deletions: '0', read: new Map() });
    assert.equal(cache.plan('sku', ['A']).request.since, 12n);
    cache.settle('sku', cache.plan('sku', ['C']), { snapshotXmin: 13n, deletions: '1', read: new Map() });
    assert.deepEqual(cache.plan('sku', ['A']).request, { missing: ['A'], held: [], since: null, deletions: '1' });
  });

  it('never holds more than its budget in bytes; when full, takes a key asked for again in place of the least recently used', () => {
    const stock = (locations: number) => encodeStock(stockOf(Array.from({ length: locations }, (_, i) => ({ locationCode: `L${i}`, onHand: 1, reserved: 0, incoming: [] }))));
    const entry = (sku: string, locations = 5) => [product(sku, '1//', stock(locations))];
    const settle = (cache: LookupProductCache, kind: LookupKind, rows: ReadonlyMap<string, LookupProductRow[]>) =>
      cache.settle(kind, cache.plan(kind, [...rows.keys()]), { snapshotXmin: 1n, deletions: '0', read: new Map(rows) });
    const bytesOf = (key: string, rows: LookupProductRow[]) => {
      const probe = new LookupProductCache(1, () => 0);
      return heldBytes(key, settle(probe, 'sku', new Map([[key, rows]])).get(key) as HeldKey);
    };
    // Every key below costs the same: room for three and a half.
    const one = bytesOf('sK0', entry('K0'));
    const budget = Math.floor(3.5 * one);
    const cache = new LookupProductCache(budget / (1024 * 1024), () => 0);
    settle(cache, 'sku', new Map([['K1', entry('K1')], ['K2', entry('K2')]]));
    settle(cache, 'ean', new Map([['K3', entry('K3')]]));
    assert.equal(cache.heldBytes, 3 * one, 'while there is room, every key read is held');
    cache.plan('sku', ['K1']); // K1 is now more recently used than K2
    const first = settle(cache, 'ean', new Map([['K4', entry('K4')]]));
    assert.equal(first.get('K4')?.products[0]?.sku, 'K4', 'answered');
    assert.deepEqual(cache.plan('ean', ['K4']).request.missing, ['K4'], 'full, and K4 was never asked for before: not held');
    settle(cache, 'ean', new Map([['K4', entry('K4')]]));
    assert.ok(cache.heldBytes <= budget);
    assert.deepEqual(cache.plan('sku', ['K1', 'K2']).request.missing, ['K2'], 'asked again: held, and the least recently used went');
    assert.deepEqual(cache.plan('ean', ['K3', 'K4']).request.missing, [], 'an EAN counts against the same budget');
    // Larger products take more of it: one with 36 locations pushes out two keys.
    const large = bytesOf('sBIG', entry('BIG', 36));
    assert.ok(large > 2 * one && large + one <= budget);
    settle(cache, 'sku', new Map([['BIG', entry('BIG', 36)]]));
    settle(cache, 'sku', new Map([['BIG', entry('BIG', 36)]]));
    assert.equal(cache.heldBytes, large + one);
    assert.deepEqual(cache.plan('ean', ['K3', 'K4']).request.missing, ['K3'], 'K4 was used last');
    // A key larger than the whole budget answers its calls but is never held.
    for (const _ of [1, 2]) {
      const huge = settle(cache, 'sku', new Map([['HUGE', entry('HUGE', 400)]]));
      assert.equal(decodeStock(huge.get('HUGE')?.products[0]?.stock ?? '').byLocation.length, 400);
    }
    assert.deepEqual(cache.plan('sku', ['HUGE']).request.missing, ['HUGE']);
    assert.ok(cache.heldBytes <= budget);
  });

  it('keeps the stored stock text and the rendered fields, and answers a product with no inventory with none', () => {
    const cache = new LookupProductCache(1, () => 0);
    const stored = encodeStock(stockOf([{ locationCode: 'SYD', onHand: 3, reserved: 1, incoming: [{ quantity: 4, expectedDate: '2027-01-01' }] }]));
    const answered = cache.settle('sku', cache.plan('sku', ['A', 'B']), {
      snapshotXmin: 1n, deletions: '0', read: new Map([['A', [product('A', '1//', stored)]], ['B', [{ ...product('B'), name: '', color: 'Red "Ruby"' }]]]),
    });
    const [a, b] = ['A', 'B'].map((key) => answered.get(key)?.products[0]);
    assert.equal(a?.stock, stored, 'the text as stored, not parsed and rendered again');
    assert.deepEqual(decodeStock(b?.stock ?? ''), { onHand: 0, reserved: 0, byLocation: [], incoming: [] });
    assert.equal(b?.fields, ',"ean":null,"sku":"B","masterProductNo":"B","name":null,"size":null,"color":"Red \\"Ruby\\""',
      'a name sent empty is null; the master is the SKU when none was sent; strings escaped');
  });

  it('counts every product of a key, its strings, stock and kept prices at their most', () => {
    const base = heldBytes('sA', { products: [], checkedAsOf: 0n, checkedAt: 0 });
    const cache = new LookupProductCache(1, () => 0);
    const answered = cache.settle('ean', cache.plan('ean', ['E']), {
      snapshotXmin: 1n, deletions: '0', read: new Map([['E', [product('A', '1//', encodeStock(stockOf([
        { locationCode: 'SYD', onHand: 3, reserved: 0, incoming: [{ quantity: 1, expectedDate: '2027-01-01' }] },
      ]))), product('B')]]]),
    });
    const held = answered.get('E') as HeldKey;
    const [a, b] = held.products;
    assert.ok(a && b);
    const total = heldBytes('eE', held);
    assert.ok(total > base + 2 * PRICES_KEPT_PER_PRODUCT * 100, 'room for every kept price is counted up front');
    assert.ok(heldBytes('eE', { ...held, products: [a] }) > heldBytes('eE', { ...held, products: [b] }), 'stock counts');
    assert.equal(cache.heldBytes, total);
  });
});
