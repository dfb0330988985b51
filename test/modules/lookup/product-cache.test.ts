import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { gs1CheckDigit } from '../../../src/modules/lookup/ean.js';
import { MAX_CHANGES_CHECKED, findLookupBatch } from '../../../src/modules/lookup/lookup.repository.js';
import { lookupProducts } from '../../../src/modules/lookup/lookup.service.js';
import { LookupProductCache, MAX_CHECK_AGE_MS, type LookupKind } from '../../../src/modules/lookup/product-cache.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/processes.js';

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
   * Waits until no transaction older than the last write to these tables is in flight anywhere in
   * the cluster (other test files write to other databases of it). Until then a snapshot cannot
   * tell those rows from rows still being written, and a check reads them again to be safe.
   */
  const quiet = () => waitFor('older transactions to finish', async () => {
    const { rows } = await t.pool.query<{ quiet: boolean }>(`
      SELECT coalesce(pg_snapshot_xmin(pg_current_snapshot()) > greatest(
        (SELECT changed_xid FROM products ORDER BY changed_xid DESC LIMIT 1),
        (SELECT changed_xid FROM inventory_items ORDER BY changed_xid DESC LIMIT 1),
        (SELECT changed_xid FROM brands ORDER BY changed_xid DESC LIMIT 1)), true) AS quiet`);
    return rows[0]?.quiet === true;
  });
  const lookup = async (kind: LookupKind, keys: string[], account = 'C1') => {
    await quiet();
    return lookupProducts(deps(), account, kind, keys);
  };
  /**
   * Runs one call's statement as the lookup does, once earlier writes are settled, and returns the
   * keys the database read again.
   */
  const reread = async (kind: LookupKind, keys: string[]) => {
    await quiet();
    const plan = cache.plan(kind, keys);
    const batch = await findLookupBatch(t.pool, 'C1', kind, plan.request);
    cache.settle(kind, plan, batch);
    return [...batch.read.keys()].sort();
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
    await lookup('sku', ['A-1', 'B-1']);
    await t.pool.query("DELETE FROM products WHERE sku = 'B-1'");
    assert.deepEqual((await lookup('sku', ['A-1', 'B-1'])).map((r) => r.found), [true, false]);
    assert.deepEqual(await reread('sku', ['A-1']), [], 'held again once read after the delete');
    await t.pool.query('TRUNCATE inventory_items CASCADE');
    const [a] = await lookup('sku', ['A-1']);
    assert.deepEqual(a?.value?.stock, { onHand: 0, reserved: 0, byLocation: [], incoming: [] });
  });

  it('reads a key again when it has not been checked for MAX_CHECK_AGE_MS', async () => {
    await reread('sku', ['A-1']);
    clock += MAX_CHECK_AGE_MS - 1;
    assert.deepEqual(await reread('sku', ['A-1']), [], 'checked, not read');
    clock += MAX_CHECK_AGE_MS - 1;
    assert.deepEqual(planned('sku', ['A-1']).held, ['A-1'], 'the check renewed it');
    clock += MAX_CHECK_AGE_MS + 1;
    assert.deepEqual(planned('sku', ['A-1']), { missing: ['A-1'], held: [] });
  });

  it(`reads every held key again when more than ${MAX_CHANGES_CHECKED} rows changed since they were checked`, async () => {
    await reread('sku', ['A-1', 'B-1']);
    await t.pool.query(`INSERT INTO products (sku, name) SELECT 'GEN-' || n, 'generated' FROM generate_series(1, ${MAX_CHANGES_CHECKED + 1}) AS n`);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), ['A-1', 'B-1']);
    assert.deepEqual(await reread('sku', ['A-1', 'B-1']), [], 'checked from the new point on');
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
  const product = (sku: string) => ({
    sku, ean: null, master_product_no: null, name: sku, size: null, color: null, unit_price: '1', blocked: false,
    brand_code: null, item_discount_group: null, brand_restricted: false, stock_json: null,
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

  it('holds at most the given number of keys per kind, dropping the least recently used', () => {
    const cache = new LookupProductCache(2, () => 0);
    const read = (keys: string[]) => new Map(keys.map((k) => [k, [product(k)]]));
    cache.settle('sku', cache.plan('sku', ['A', 'B']), { snapshotXmin: 1n, deletions: '0', read: read(['A', 'B']) });
    cache.plan('sku', ['A']); // A is now more recently used than B
    cache.settle('sku', cache.plan('sku', ['C']), { snapshotXmin: 1n, deletions: '0', read: read(['C']) });
    assert.deepEqual(cache.plan('sku', ['A', 'B', 'C']).request.missing, ['B']);
  });
});
