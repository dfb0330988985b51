import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { gs1CheckDigit } from '../../../src/modules/lookup/ean.js';
import { LookupResponseSchema, type LookupResult } from '../../../src/modules/lookup/lookup.schemas.js';
import { lookupAnswer, lookupProducts } from '../../../src/modules/lookup/lookup.service.js';
import { LookupProductCache } from '../../../src/modules/lookup/product-cache.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

const ean13 = (body12: string): string => `${body12}${gs1CheckDigit(body12)}`;

/**
 * The lookup renders its answer itself (lookup.render.ts) instead of handing objects to the route's
 * serialiser. These tests hold it to the serialiser: for the same results, the same bytes.
 */
describe('the lookup\'s rendered answer', () => {
  let t: TestApp;
  let rules: PriceRuleCache;
  let serialiser: FastifyInstance;
  let results: LookupResult[] = [];
  const products = new LookupProductCache(64, () => 0);
  const deps = () => ({ pool: t.pool, currency: 'AUD', rules, products, now: () => new Date('2026-11-22T00:00:00Z') });
  /** What Fastify's serialiser, compiled from the route's 200 schema, makes of `results`. */
  const serialised = async (data: LookupResult[]) => {
    results = data;
    const reply = await serialiser.inject({ method: 'GET', url: '/' });
    assert.equal(reply.statusCode, 200);
    return reply.body;
  };
  const EAN = ean13('930000000501');
  const KEYS = ['R-QUOTE', 'R-UNI', 'R-NULLS', 'NOPE', 'R-QUOTE', 'R-CTRL', 'R-BLOCKED'];

  before(async () => {
    t = await buildTestApp({ SITE_CURRENCY: 'AUD' });
    rules = new PriceRuleCache(t.pool);
    serialiser = Fastify();
    serialiser.get('/', { schema: { response: { 200: LookupResponseSchema } } }, async () => ({ data: results }));
    await serialiser.ready();
    await putBatch(t, '/catalogue/products', [
      { sku: 'R-QUOTE', masterProductNo: 'R "M" \\', name: 'Tee "Classic" \\ back', size: 'XL', color: 'Red', ean: EAN, unitPrice: '21.7525' },
      { sku: 'R-UNI', name: 'Café – naïve 😀 \u2028 end', size: 'Größe', color: '赤', unitPrice: 10 },
      { sku: 'R-NULLS', name: '' },
      { sku: 'R-CTRL', name: 'tab\there\nline\u0001', unitPrice: '0.0001' },
      { sku: 'R-BLOCKED', unitPrice: 5, blocked: true },
    ]);
    await putBatch(t, '/inventory', [
      { sku: 'R-QUOTE', locations: [
        { locationCode: 'MEL "1"', onHand: 4, reserved: 1, incoming: [{ quantity: 2, expectedDate: '2027-03-01' }] },
        { locationCode: 'Zürich', onHand: 0, incoming: [{ quantity: 5, expectedDate: '2027-01-01' }] },
      ] },
      { sku: 'R-UNI', locations: [] },
    ]);
    await putBatch(t, '/customer', [{ account: { accountNo: 'C1', name: 'One', status: 'Active' } }]);
    const media = await putBatch(t, '/catalogue/media', [{ masterProductNo: 'R "M" \\', color: 'Red', images: [
      { url: 'https://cdn.example.com/tee/"classic"\\front.jpg?a=1&b=<2>', alt: 'Tee "Classic" \\ back – 😀 \u2028 end\ttab' },
      { url: 'https://cdn.example.com/tee/back.jpg', alt: null },
    ] }]);
    assert.deepEqual(media.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted']);
  });
  after(async () => {
    await serialiser?.close();
    await t?.close();
  });

  it('is byte for byte what the response schema serialises, by SKU: escapes, unicode, nulls, not found, duplicates', async () => {
    const objects = await lookupProducts(deps(), 'C1', 'sku', KEYS);
    assert.deepEqual(objects.map((r) => r.found), [true, true, true, false, true, true, false]);
    assert.deepEqual(objects.map((r) => r.value?.images.length), [2, 0, 0, undefined, 2, 0, undefined]);
    const text = await lookupAnswer(deps(), 'C1', 'sku', KEYS);
    assert.equal(text, await serialised(objects));
    assert.deepEqual(JSON.parse(text), { data: objects });
  });

  it('is byte for byte what the response schema serialises, by EAN', async () => {
    const keys = [EAN, ean13('930000000599')];
    const objects = await lookupProducts(deps(), 'C1', 'ean', keys);
    assert.equal(objects[0]?.value?.stock.byLocation.length, 2);
    assert.equal(await lookupAnswer(deps(), 'C1', 'ean', keys), await serialised(objects));
  });

  it('answers the route with that text as JSON', async () => {
    const { key } = await createApiKey(t.pool, { kind: 'customer', accountNo: 'C1' });
    const reply = await t.app.inject({
      method: 'POST', url: '/api/public/v1/products/by-sku', headers: { 'x-api-key': key }, payload: { skus: KEYS },
    });
    assert.equal(reply.statusCode, 200, reply.body);
    assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(reply.body, await lookupAnswer(deps(), 'C1', 'sku', KEYS));
  });
});
