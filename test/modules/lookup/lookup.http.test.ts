import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey, revokeApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { gs1CheckDigit } from '../../../src/modules/lookup/ean.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/** POST /api/public/v1/products/by-sku and /by-ean through the real app: keys, customer, limits, errors, prices. */

const ean13 = (body12: string) => `${body12}${gs1CheckDigit(body12)}`;
const EAN_A = ean13('930000000011');

describe('public product lookup over HTTP', () => {
  let t: TestApp;
  let integrator: string;
  let customerKey: string;

  before(async () => {
    t = await buildTestApp({ SITE_CURRENCY: 'NZD' });
    await putBatch(t, '/catalogue/products', [
      { sku: 'A-1', masterProductNo: 'A', name: 'Alpha', ean: EAN_A, unitPrice: '21.7525', itemDiscountGroup: 'TEES' },
      { sku: 'B-1', unitPrice: 40 },
    ]);
    await putBatch(t, '/customer', [
      { account: { accountNo: 'C1', name: 'One', status: 'Active', priceGroup: 'GOLD' } },
      { account: { accountNo: 'C2', name: 'Two', status: 'Active' } },
    ]);
    await putBatch(t, '/pricing/rules', [
      { ruleId: 'GOLD-B', sourceType: 'CustomerPriceGroup', sourceCode: 'GOLD', sku: 'B-1', amountType: 'Price', unitPrice: 30, allowLineDiscount: true },
      { ruleId: 'ALL-TEES-10', sourceType: 'AllCustomers', itemDiscountGroup: 'TEES', amountType: 'Discount', lineDiscountPercent: 10 },
      { ruleId: 'GOLD-B-10', sourceType: 'CustomerPriceGroup', sourceCode: 'GOLD', sku: 'B-1', amountType: 'Discount', lineDiscountPercent: 12.5 },
    ]);
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'test integrator' })).key;
    customerKey = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'C2' })).key;
  });
  after(async () => { await t.close(); });

  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: `/api/public/v1/products${path}`, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });

  it('prices for the customer named in X-Customer-No and answers every key in request order', async () => {
    const res = await post('/by-sku', { skus: ['B-1', 'NOPE', 'A-1', 'B-1'] }, { 'x-api-key': integrator, 'x-customer-no': 'C1' });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data as Array<{ key: string; found: boolean; value: { unitPrice: string; currency: string } | null }>;
    assert.deepEqual(data.map((r) => [r.key, r.found, r.value?.unitPrice]), [
      // GOLD price 30 with the GOLD discount 12.5 %: 26.25; A-1 list 21.7525 less the all-customers 10 %: 19.57725 → 19.5773.
      ['B-1', true, '26.2500'], ['NOPE', false, undefined], ['A-1', true, '19.5773'], ['B-1', true, '26.2500'],
    ]);
    assert.deepEqual(data[1], { key: 'NOPE', found: false, value: null });
    assert.equal(data[0]?.value?.currency, 'NZD');
    assert.match(String(res.headers['ratelimit-policy']), /^"default";q=600;w=60$/);
    assert.match(String(res.headers.ratelimit), /^"default";r=\d+;t=\d+$/);
  });

  it('a customer key prices for its own account and ignores X-Customer-No', async () => {
    const res = await post('/by-sku', { skus: ['B-1'] }, { 'x-api-key': customerKey, 'x-customer-no': 'C1' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data[0].value.unitPrice, '40.0000', 'C2 has no group price: the list price');
  });

  it('resolves by EAN, and refuses a bad EAN naming each one', async () => {
    const ok = await post('/by-ean', { eans: [EAN_A, ean13('930000000099')] }, { 'x-api-key': integrator, 'x-customer-no': 'C2' });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json().data.map((r: { found: boolean; value: { sku: string } | null }) => [r.found, r.value?.sku]), [[true, 'A-1'], [false, undefined]]);

    const bad = await post('/by-ean', { eans: [EAN_A, '9300000000110', '12345'] }, { 'x-api-key': integrator, 'x-customer-no': 'C2' });
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /^application\/problem\+json/);
    const problem = bad.json();
    assert.equal(problem.status, 400);
    assert.deepEqual(problem.errors.map((e: { path: string }) => e.path), ['/eans/1', '/eans/2']);
  });

  it('400: no keys, more than 100 keys, X-Customer-No missing on an integrator key', async () => {
    const empty = await post('/by-sku', { skus: [] }, { 'x-api-key': integrator, 'x-customer-no': 'C1' });
    const tooMany = await post('/by-sku', { skus: Array(101).fill('A-1') }, { 'x-api-key': integrator, 'x-customer-no': 'C1' });
    const noCustomer = await post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': integrator });
    for (const res of [empty, tooMany, noCustomer]) {
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().status, 400);
      assert.equal(res.json().data, undefined, 'problems are never wrapped in data');
    }
    const hundred = await post('/by-sku', { skus: Array(100).fill('A-1') }, { 'x-api-key': integrator, 'x-customer-no': 'C1' });
    assert.equal(hundred.json().data.length, 100);
  });

  it('400 naming each key that holds a character PostgreSQL cannot store (NUL, an unpaired surrogate), not a 503', async () => {
    const headers = { 'x-api-key': integrator, 'x-customer-no': 'C1' };
    const bySku = await post('/by-sku', { skus: ['A-1', 'a\u0000b', 'x\ud800'] }, headers);
    assert.equal(bySku.statusCode, 400, bySku.body);
    assert.match(String(bySku.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(bySku.json().errors.map((e: { path: string }) => e.path), ['/skus/1', '/skus/2']);
    assert.match(bySku.json().errors[0].message, /NUL/);
    const byEan = await post('/by-ean', { eans: [`${EAN_A.slice(0, 6)}\u0000${EAN_A.slice(7)}`] }, headers);
    assert.equal(byEan.statusCode, 400, byEan.body);
    assert.deepEqual(byEan.json().errors.map((e: { path: string }) => e.path), ['/eans/0']);
  });

  it('400 naming each SKU of white space only', async () => {
    const res = await post('/by-sku', { skus: ['A-1', '   ', '\t\n'] }, { 'x-api-key': integrator, 'x-customer-no': 'C1' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json().errors, [
      { path: '/skus/1', message: 'must not be blank (white space only)' },
      { path: '/skus/2', message: 'must not be blank (white space only)' },
    ]);
  });

  it('400 naming X-Customer-No when it holds a NUL, not a 503; an X-API-Key with a NUL is just an invalid key', async () => {
    const res = await post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': integrator, 'x-customer-no': 'C\u00001' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), ['/headers/x-customer-no']);
    const key = await post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': `${integrator.slice(0, 10)}\u0000${integrator.slice(11)}`, 'x-customer-no': 'C1' });
    assert.equal(key.statusCode, 401, key.body);
  });

  it('400 for a body that is not valid UTF-8, instead of looking up a replacement character', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/public/v1/products/by-sku',
      headers: { 'content-type': 'application/json', 'x-api-key': integrator, 'x-customer-no': 'C1' },
      payload: Buffer.concat([Buffer.from('{"skus":["A-1'), Buffer.from([0xff]), Buffer.from('"]}')]),
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.equal(res.json().type, 'urn:portway:problem:invalid-utf8');
  });

  it('401: missing, invalid, revoked key, and an integration JWT; 404: unknown customer', async () => {
    const missing = await post('/by-sku', { skus: ['A-1'] }, {});
    // One character off (never the character it already was): the checksum refuses it.
    const invalid = await post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': `${integrator.slice(0, -1)}${integrator.endsWith('x') ? 'y' : 'x'}` });
    const jwt = await post('/by-sku', { skus: ['A-1'] }, { authorization: `Bearer ${await t.token()}`, 'x-customer-no': 'C1' });
    const created = await createApiKey(t.pool, { kind: 'integrator' });
    await revokeApiKey(t.pool, created.record.id);
    const revoked = await post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': created.key, 'x-customer-no': 'C1' });
    for (const res of [missing, invalid, jwt, revoked]) assert.equal(res.statusCode, 401, res.body);
    const unknown = await post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': integrator, 'x-customer-no': 'NOBODY' });
    assert.equal(unknown.statusCode, 404);
  });

  it('429 once the key\'s window is used up, with Retry-After; another key is untouched', async () => {
    const limited = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'C2', rateLimit: 2, windowS: 3600 })).key;
    const call = (key: string) => post('/by-sku', { skus: ['A-1'] }, { 'x-api-key': key });
    assert.equal((await call(limited)).statusCode, 200);
    assert.equal((await call(limited)).statusCode, 200);
    const refused = await call(limited);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(refused.json().status, 429);
    assert.equal((await call(customerKey)).statusCode, 200);
  });
});
