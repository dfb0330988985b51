import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { gs1CheckDigit, eanProblem } from '../../../src/modules/lookup/ean.js';
import { findLookupBatch } from '../../../src/modules/lookup/lookup.repository.js';
import { PRICES_KEPT_PER_PRODUCT, lookupProducts, parseLookupKeys } from '../../../src/modules/lookup/lookup.service.js';
import { LookupProductCache } from '../../../src/modules/lookup/product-cache.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import { problemOfRefusal } from '../../../src/platform/http/problem.js';
import { Refusal } from '../../../src/platform/refusal.js';
import { lookupProblems } from '../../../src/modules/lookup/lookup.routes.js';
import { customersProblems } from '../../../src/modules/customers/index.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/** The problem the API answers for a refusal of the lookup. */
const apiProblem = (error: unknown) => (error instanceof Refusal ? problemOfRefusal(error, [lookupProblems, customersProblems]) : undefined);

/** EAN-13 with its check digit appended. */
function ean13(body12: string): string {
  return `${body12}${gs1CheckDigit(body12)}`;
}

describe('EAN validation (GS1)', () => {
  it('accepts EAN-13 and EAN-8 with a correct check digit and names the problem otherwise', () => {
    assert.equal(eanProblem('4006381333931'), undefined); // a well-known valid EAN-13
    assert.equal(eanProblem('73513537'), undefined); // a valid EAN-8
    assert.equal(eanProblem('4006381333932'), 'has a wrong check digit (expected 1)');
    assert.equal(eanProblem('400638133393'), 'must be an EAN of 8 or 13 digits');
    assert.equal(eanProblem('40063813339a1'), 'must be an EAN of 8 or 13 digits');
    assert.equal(eanProblem(' 73513537'), 'must be an EAN of 8 or 13 digits');
  });
});

describe('lookup keys', () => {
  const refused = (body: unknown, kind: 'sku' | 'ean') => {
    try {
      parseLookupKeys(body, kind);
    } catch (error) {
      const problem = apiProblem(error);
      assert.ok(problem, String(error));
      assert.equal(problem.status, 400);
      return problem.errors;
    }
    assert.fail('expected a 400');
  };

  it('takes 1 to 100 keys and refuses 0, 101, a non-array and non-strings', () => {
    assert.deepEqual(parseLookupKeys({ skus: ['A', 'A', 'B'] }, 'sku'), ['A', 'A', 'B']);
    assert.equal(parseLookupKeys({ skus: Array(100).fill('X') }, 'sku').length, 100);
    assert.deepEqual(refused({ skus: [] }, 'sku'), [{ path: '/skus', message: 'must hold 1 to 100 keys' }]);
    assert.deepEqual(refused({ skus: Array(101).fill('X') }, 'sku'), [{ path: '/skus', message: 'must hold 1 to 100 keys' }]);
    assert.deepEqual(refused({ sku: ['A'] }, 'sku'), [{ path: '/skus', message: 'must be an array' }]);
    assert.deepEqual(refused({ skus: ['A', 3, ''] }, 'sku'), [{ path: '/skus/1', message: 'must be a string' }, { path: '/skus/2', message: 'must not be empty' }]);
  });

  it('refuses every invalid EAN of a batch, naming each', () => {
    assert.deepEqual(refused({ eans: ['4006381333931', '4006381333932', '123', '73513537'] }, 'ean'), [
      { path: '/eans/1', message: '"4006381333932" has a wrong check digit (expected 1)' },
      { path: '/eans/2', message: '"123" must be an EAN of 8 or 13 digits' },
    ]);
  });
});

describe('lookupProducts on the database', () => {
  let t: TestApp;
  let rules: PriceRuleCache;
  // A clock that never moves: no held key ever ages past MAX_CHECK_AGE_MS, however slow the run.
  const products = new LookupProductCache(64, () => 0);
  const deps = () => ({ pool: t.pool, currency: 'AUD', rules, products, now: () => new Date('2026-11-22T00:00:00Z') });
  const EAN_A = ean13('930000000001');
  const EAN_B = ean13('930000000002');

  before(async () => {
    t = await buildTestApp();
    rules = new PriceRuleCache(t.pool);
    await putBatch(t, '/catalogue/products', [
      { sku: 'A-1', masterProductNo: 'A', name: 'Alpha', size: 'M', color: 'Red', ean: EAN_A, unitPrice: '21.7525', brandCode: 'LUMA' },
      { sku: 'B-1', name: '', ean: EAN_B, unitPrice: 10 },
      { sku: 'BLOCKED', unitPrice: 5, blocked: true },
      { sku: 'RESTRICTED', unitPrice: 5, brandCode: 'VIP' },
      { sku: 'NOPRICE' },
    ]);
    await putBatch(t, '/customer', [
      { account: { accountNo: 'C1', name: 'One', status: 'Active' } },
      { account: { accountNo: 'C2', name: 'Two', status: 'Active', allowedBrands: 'LUMA', indentBrands: 'VIP' } },
      { account: { accountNo: 'C3', name: 'Three', status: 'Active', allowedBrands: 'ACME' } },
    ]);
    await putBatch(t, '/inventory', [
      { sku: 'A-1', locations: [{ locationCode: 'SYD', onHand: 7, reserved: 2, incoming: [{ quantity: 4, expectedDate: '2027-01-15' }] }, { locationCode: 'MEL', onHand: 5 }] },
    ]);
    await t.pool.query("INSERT INTO brands (code, name, restricted) VALUES ('VIP', 'VIP only', true), ('LUMA', 'Luma', false)");
  });
  after(async () => { await t.close(); });

  it('answers every key in request order, duplicates repeated, unknown keys not found', async () => {
    const results = await lookupProducts(deps(), 'C1', 'sku', ['A-1', 'NOPE', 'A-1', 'B-1']);
    assert.deepEqual(results.map((r) => [r.key, r.found]), [['A-1', true], ['NOPE', false], ['A-1', true], ['B-1', true]]);
    assert.deepEqual(results[1], { key: 'NOPE', found: false, value: null });
    assert.deepEqual(results[0], {
      key: 'A-1',
      found: true,
      value: {
        currency: 'AUD', ean: EAN_A, sku: 'A-1', masterProductNo: 'A', name: 'Alpha', size: 'M', color: 'Red', unitPrice: '21.7525',
        stock: {
          onHand: 12, reserved: 2,
          byLocation: [{ locationCode: 'MEL', quantity: 5 }, { locationCode: 'SYD', quantity: 7 }],
          incoming: [{ locationCode: 'SYD', quantity: 4, expectedDate: '2027-01-15' }],
        },
        images: [],
      },
    });
  });

  it('fills the null rules: own sku as master, "" and never-sent strings as null, no inventory as zeros, no price as null', async () => {
    const [b, noPrice] = await lookupProducts(deps(), 'C1', 'sku', ['B-1', 'NOPRICE']);
    assert.deepEqual(b?.value, {
      currency: 'AUD', ean: EAN_B, sku: 'B-1', masterProductNo: 'B-1', name: null, size: null, color: null, unitPrice: '10.0000',
      stock: { onHand: 0, reserved: 0, byLocation: [], incoming: [] },
      images: [],
    });
    assert.equal(noPrice?.value?.unitPrice, null);
    assert.equal(noPrice?.value?.ean, null);
  });

  it('resolves by EAN the same way', async () => {
    const results = await lookupProducts(deps(), 'C1', 'ean', [EAN_B, ean13('930000000099'), EAN_A]);
    assert.deepEqual(results.map((r) => [r.key, r.found, r.value?.sku]), [[EAN_B, true, 'B-1'], [results[1]?.key, false, undefined], [EAN_A, true, 'A-1']]);
  });

  it('by EAN, the first visible of the variants sharing a code answers, in SKU order by code units whatever the write order or collation', async () => {
    const shared = ean13('930000000055');
    // Written one batch at a time. The first visible one is b-1 in write order and in a linguistic
    // collation (A-0 < b-1 < B-2 < c-3), c-3 in reverse write order; by code units A-0 < B-2 < b-1
    // < c-3, and A-0 is blocked, so B-2 answers.
    for (const item of [
      { sku: 'b-1', ean: shared, unitPrice: 1 },
      { sku: 'A-0', ean: shared, unitPrice: 9, blocked: true },
      { sku: 'B-2', ean: shared, unitPrice: 2 },
      { sku: 'c-3', ean: shared, unitPrice: 3 },
    ]) assert.equal((await putBatch(t, '/catalogue/products', [item])).statusCode, 200);
    const [result] = await lookupProducts(deps(), 'C1', 'ean', [shared]);
    assert.equal(result?.value?.sku, 'B-2');
    assert.equal(result?.value?.unitPrice, '2.0000');
  });

  it('does not show blocked products, nor brands the account may not buy', async () => {
    const c1 = await lookupProducts(deps(), 'C1', 'sku', ['BLOCKED', 'RESTRICTED', 'A-1']);
    assert.deepEqual(c1.map((r) => r.found), [false, false, true]);
    // C2 lists LUMA and has VIP on indent; C3 may buy only ACME, so LUMA is hidden and unbranded B-1 stays.
    const c2 = await lookupProducts(deps(), 'C2', 'sku', ['RESTRICTED', 'A-1']);
    assert.deepEqual(c2.map((r) => r.found), [true, true]);
    const c3 = await lookupProducts(deps(), 'C3', 'sku', ['A-1', 'B-1']);
    assert.deepEqual(c3.map((r) => r.found), [false, true]);
  });

  it('prices for the account with its rules, including a rule committed since the last call', async () => {
    const [before] = await lookupProducts(deps(), 'C2', 'sku', ['A-1']);
    assert.equal(before?.value?.unitPrice, '21.7525');
    await putBatch(t, '/pricing/rules', [
      { ruleId: 'C2-A', sourceType: 'Customer', sourceCode: 'C2', sku: 'A-1', amountType: 'Price', unitPrice: '19.9999' },
    ]);
    const [c1] = await lookupProducts(deps(), 'C1', 'sku', ['A-1']);
    const [c2] = await lookupProducts(deps(), 'C2', 'sku', ['A-1']);
    assert.equal(c1?.value?.unitPrice, '21.7525');
    assert.equal(c2?.value?.unitPrice, '19.9999');
  });

  it('prices again when the instant passes a rule\'s start or end, whatever was kept', async () => {
    await putBatch(t, '/pricing/rules', [{
      ruleId: 'B-SALE', sourceType: 'AllCustomers', sku: 'B-1', amountType: 'Price', unitPrice: '7.5',
      startDate: '2026-12-01T00:00:00Z', endDate: '2026-12-31T23:59:59Z',
    }]);
    const at = async (instant: string) => (await lookupProducts({ ...deps(), now: () => new Date(instant) }, 'C1', 'sku', ['B-1']))[0]?.value?.unitPrice;
    assert.equal(await at('2026-11-30T23:59:59.999Z'), '10.0000');
    assert.equal(await at('2026-12-01T00:00:00.000Z'), '7.5000');
    assert.equal(await at('2026-12-31T23:59:59.000Z'), '7.5000');
    assert.equal(await at('2026-12-31T23:59:59.001Z'), '10.0000');
    assert.equal(await at('2026-12-15T00:00:00.000Z'), '7.5000');
  });

  it(`keeps prices for at most ${PRICES_KEPT_PER_PRODUCT} accounts per product, each its own, while an older transaction is open`, async () => {
    // A transaction with an id, open for the whole test and older than the product's rows, as a
    // long import or pg_dump would be (or any transaction in another database of the cluster:
    // transaction ids and snapshots are cluster-wide). Every snapshot's xmin stays at or below its
    // id, so the product's rows may still be changing as far as a check can tell, and its key is
    // read again on every call; what was decoded and priced for it must survive that.
    const older = new pg.Client({ connectionString: t.db.url });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      const accounts = Array.from({ length: PRICES_KEPT_PER_PRODUCT + 2 }, (_, i) => `K${i}`);
      await putBatch(t, '/catalogue/products', [{ sku: 'K-1', unitPrice: 10 }]);
      await putBatch(t, '/customer', accounts.map((accountNo, i) => ({ account: { accountNo, name: accountNo, status: 'Active', priceGroup: `PG${i}` } })));
      await putBatch(t, '/pricing/rules', accounts.map((accountNo, i) => ({
        ruleId: `K-${accountNo}`, sourceType: 'CustomerPriceGroup', sourceCode: `PG${i}`, sku: 'K-1', amountType: 'Price', unitPrice: `${i + 1}`,
      })));
      for (const round of [1, 2]) {
        for (const [i, accountNo] of accounts.entries()) {
          const [k] = await lookupProducts(deps(), accountNo, 'sku', ['K-1']);
          assert.equal(k?.value?.unitPrice, `${i + 1}.0000`, `round ${round}, ${accountNo}`);
        }
      }
      const plan = products.plan('sku', ['K-1']);
      assert.deepEqual(plan.request.held.map((h) => h.key), ['K-1'], 'held and only checked');
      assert.deepEqual([...(await findLookupBatch(t.pool, 'K0', 'sku', plan.request)).read.keys()], ['K-1'], 'yet read again on every call');
      assert.equal(plan.held.get('K-1')?.products[0]?.prices.length, PRICES_KEPT_PER_PRODUCT);
    } finally {
      await older.query('ROLLBACK');
      await older.end();
    }
  });

  it('costs one query for 1 key as for 100, and one more only when the price rules changed', async () => {
    const counter = { n: 0 };
    const pool = new Proxy(t.pool, {
      get(target, prop, receiver) {
        if (prop === 'query') return (...args: unknown[]) => { counter.n += 1; return (target.query as (...a: unknown[]) => unknown)(...args); };
        return Reflect.get(target, prop, receiver);
      },
    });
    const counted = { ...deps(), pool, rules: new PriceRuleCache(pool) };
    const queries = async (keys: string[]) => {
      counter.n = 0;
      await lookupProducts(counted, 'C2', 'sku', keys);
      return counter.n;
    };
    assert.equal(await queries(['A-1']), 2, 'the first call loads the rules');
    assert.equal(await queries(['A-1']), 1);
    const keys = Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? 'A-1' : i % 3 === 1 ? 'RESTRICTED' : `UNKNOWN-${i}`));
    assert.equal(await queries(keys), 1);
    assert.equal(await queries(['UNKNOWN-1']), 1, 'an account with none of the products asked for');
    await putBatch(t, '/pricing/rules', [{ ruleId: 'COUNT', sourceType: 'AllCustomers', sku: 'B-1', amountType: 'Price', unitPrice: '9' }]);
    assert.equal(await queries(keys), 2, 'a changed rule set is loaded again');
    assert.equal(await queries(keys), 1);
  });

  it('answers every key not found when none of them exists, by SKU and by EAN', async () => {
    assert.deepEqual(await lookupProducts(deps(), 'C1', 'sku', ['NOPE', 'NOPE']), [
      { key: 'NOPE', found: false, value: null }, { key: 'NOPE', found: false, value: null },
    ]);
    const missing = ean13('930000000077');
    assert.deepEqual(await lookupProducts(deps(), 'C1', 'ean', [missing]), [{ key: missing, found: false, value: null }]);
  });

  it('answers 404 for an account that does not exist', async () => {
    await assert.rejects(lookupProducts(deps(), 'NOBODY', 'sku', ['A-1']), (e: unknown) => apiProblem(e)?.status === 404);
  });
});
