import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { publicCall, pushThroughApp, pushTradingWorld, tradingKeys } from './orders-fixture.js';

/** POST /api/public/v1/quotes through the real app on a pushed trading world (orders-fixture.ts). */

describe('POST /api/public/v1/quotes', () => {
  let t: TestApp;
  let keys: Awaited<ReturnType<typeof tradingKeys>>;
  let c1: ReturnType<typeof publicCall>;

  before(async () => {
    t = await buildTestApp({ SITE_CURRENCY: 'AUD' });
    await pushTradingWorld(t);
    keys = await tradingKeys(t);
    c1 = publicCall(t, keys.c1);
  });
  after(async () => { await t.close(); });

  const orderCount = async () => (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM orders')).rows[0]?.n;

  it('prices each line at its quantity, with availability, tax per line, freight and totals that add up to the cent', async () => {
    const res = await c1('POST', '/quotes', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }, { sku: 'CAP', quantity: 1 }] });
    assert.equal(res.statusCode, 200, res.body);
    const quote = res.json();
    assert.equal(quote.currency, 'AUD');
    assert.equal(quote.shipToCode, 'MAIN');
    assert.equal(quote.orderable, true, JSON.stringify(quote.reasons));
    assert.deepEqual(quote.reasons, []);
    assert.deepEqual(quote.lines.map((l: { lineNumber: number; sku: string; unitPrice: string; lineAmount: string }) => [l.lineNumber, l.sku, l.unitPrice, l.lineAmount]), [
      [1, 'TEE-S', '18.0000', '216.0000'], // the quantity break of 10 applies at 12
      [2, 'TEE-M', '19.0000', '38.0000'], // list 20 less the TEES group's 5 %
      [3, 'CAP', '9.9999', '10.0000'], // 1 × 9.9999 rounded to cents; the unit price stays as written
    ]);
    assert.deepEqual(quote.lines[0].pricing, { basis: 'rule', listPrice: '20.0000', priceRuleId: 'TEE-S-10', discountRuleId: null, lineDiscountPercent: null });
    assert.deepEqual(quote.lines[1].pricing, { basis: 'list', listPrice: '20.0000', priceRuleId: null, discountRuleId: 'TEES-5', lineDiscountPercent: '5.0000' });
    // 5 on hand, 1 reserved: 4 now; 8 on back order, covered once the 3 of Dec 1 and the 10 of Dec 15 have arrived.
    assert.deepEqual(quote.lines[0].availability, { available: 4, fromStock: 4, backOrder: 8, incomingDate: '2026-12-15' });
    assert.deepEqual(quote.lines[1].availability, { available: 0, fromStock: 0, backOrder: 2, incomingDate: null });
    assert.deepEqual(quote.lines.map((l: { tax: { amount: string; ratePercent: string; basis: string } }) => [l.tax.amount, l.tax.ratePercent, l.tax.basis]), [
      ['21.6000', '10.0000', 'Jurisdictions'], ['3.8000', '10.0000', 'Jurisdictions'], ['1.0000', '10.0000', 'Jurisdictions'], // 10 % of the line amount 10.00
    ]);
    assert.equal(quote.lines[0].tax.taxAreaCode, 'NSW', 'the account\'s area: the ship-to sets none');
    assert.equal(quote.shipping.status, 'Quoted');
    assert.equal(quote.shipping.amount, '15.0000');
    assert.equal(quote.shipping.rateId, 'F1');
    assert.equal(quote.shipping.agentCode, 'TNT');
    assert.equal(quote.shipping.weight, '3.7000');
    assert.deepEqual(quote.totals, {
      net: '264.0000', tax: '26.4000', freight: '15.0000', total: '305.4000',
      display: { net: '264.00', tax: '26.40', freight: '15.00', total: '305.40' },
    });
  });

  it('charges no freight over the value threshold, and serves a SKU\'s stock to its lines in basket order', async () => {
    const res = await c1('POST', '/quotes', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 3 }, { sku: 'TEE-S', quantity: 57 }] });
    assert.equal(res.statusCode, 200, res.body);
    const quote = res.json();
    assert.equal(quote.totals.net, '1086.0000', '3 × 20 + 57 × 18: the break applies per line');
    assert.equal(quote.shipping.rateId, 'F3');
    assert.equal(quote.shipping.amount, '0.0000');
    assert.deepEqual(quote.lines.map((l: { availability: unknown }) => l.availability), [
      { available: 4, fromStock: 3, backOrder: 0, incomingDate: null },
      { available: 4, fromStock: 1, backOrder: 56, incomingDate: null }, // 13 expected never cover 56
    ]);
  });

  it('says what it cannot do with a 200: no routing row → Unquotable, not orderable', async () => {
    const res = await c1('POST', '/quotes', { shipToCode: 'FAR', lines: [{ sku: 'TEE-S', quantity: 1 }] });
    assert.equal(res.statusCode, 200, res.body);
    const quote = res.json();
    assert.equal(quote.shipping.status, 'Unquotable');
    assert.match(quote.shipping.reason, /9999/);
    assert.equal(quote.orderable, false);
    assert.match(quote.reasons.join(' '), /Unquotable/);
    assert.equal(quote.totals.freight, '0.0000');
    assert.equal(quote.totals.net, '20.0000');

    const noCountry = (await c1('POST', '/quotes', { shipToCode: 'NOCTRY', lines: [{ sku: 'TEE-S', quantity: 1 }] })).json();
    assert.equal(noCountry.shipping.status, 'Unquotable');
    assert.match(noCountry.shipping.reason, /no country/);
  });

  it('a First Nations ship-to is exempt; a GST account uses the matrix and leaves a line with a missing pair untaxed', async () => {
    const fn = (await c1('POST', '/quotes', { shipToCode: 'FN', lines: [{ sku: 'TEE-M', quantity: 1 }] })).json();
    assert.equal(fn.lines[0].tax.basis, 'FirstNations');
    assert.equal(fn.lines[0].tax.amount, '0.0000');
    assert.match(fn.lines[0].tax.reason, /First Nations/);

    const gst = (await publicCall(t, keys.g1)('POST', '/quotes', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-M', quantity: 1 }, { sku: 'CAP', quantity: 1 }] })).json();
    assert.deepEqual([gst.lines[0].tax.basis, gst.lines[0].tax.amount], ['Gst', '1.9000'], '10 % of 19.0000');
    assert.deepEqual([gst.lines[1].tax.basis, gst.lines[1].tax.amount], ['Untaxed', '0.0000']);
    assert.match(gst.lines[1].tax.reason, /DOMESTIC/);
    assert.match(gst.lines[1].tax.reason, /FREE/);
    assert.equal(gst.orderable, true, 'an untaxed line does not stop an order');
  });

  it('a product without a price is quoted without one and makes the basket not orderable', async () => {
    const quote = (await c1('POST', '/quotes', { shipToCode: 'MAIN', lines: [{ sku: 'NOPRICE', quantity: 1 }] })).json();
    assert.equal(quote.lines[0].unitPrice, null);
    assert.equal(quote.lines[0].lineAmount, null);
    assert.equal(quote.orderable, false);
    assert.match(quote.reasons[0], /no price/);
  });

  it('an unknown, a blocked and a not-entitled SKU are each named in one 422, in the same words', async () => {
    const res = await c1('POST', '/quotes', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 1 }, { sku: 'NOPE', quantity: 1 }, { sku: 'BLK-1', quantity: 1 }, { sku: 'HID-1', quantity: 1 }] });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const problem = res.json();
    assert.deepEqual(problem.errors, [
      { path: '/lines/1/sku', message: 'unknown SKU "NOPE"' },
      { path: '/lines/2/sku', message: 'unknown SKU "BLK-1"' },
      { path: '/lines/3/sku', message: 'unknown SKU "HID-1"' },
    ]);
  });

  it('an unknown ship-to is a 422 naming /shipToCode', async () => {
    const res = await c1('POST', '/quotes', { shipToCode: 'NOWHERE', lines: [{ sku: 'TEE-S', quantity: 1 }] });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), ['/shipToCode']);
  });

  it('400 naming every bad path: quantity 0, negative, fractional, huge; a missing SKU; more than 500 lines; not an object', async () => {
    const bad = await c1('POST', '/quotes', {
      shipToCode: 'MAIN',
      lines: [{ sku: 'TEE-S', quantity: 0 }, { sku: 'TEE-S', quantity: -2 }, { sku: 'TEE-S', quantity: 1.5 }, { sku: 'TEE-S', quantity: 2_147_483_648 }, { quantity: 1 }],
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.json().errors.map((e: { path: string }) => e.path), ['/lines/0/quantity', '/lines/1/quantity', '/lines/2/quantity', '/lines/3/quantity', '/lines/4/sku']);

    const many = await c1('POST', '/quotes', { shipToCode: 'MAIN', lines: Array.from({ length: 501 }, () => ({ sku: 'TEE-S', quantity: 1 })) });
    assert.equal(many.statusCode, 400);
    assert.deepEqual(many.json().errors.map((e: { path: string }) => e.path), ['/lines']);

    for (const body of [[], 'text', { lines: [{ sku: 'TEE-S', quantity: 1 }] }, { shipToCode: 'MAIN', lines: [] }]) {
      const res = await c1('POST', '/quotes', body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.ok(res.json().errors.length > 0);
    }
    assert.equal(await orderCount(), 0, 'a quote stores nothing');
  });

  it('security: no key 401, an integrator key needs X-Customer-No (400), an unknown account 404', async () => {
    const body = { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 1 }] };
    assert.equal((await publicCall(t, 'pw_nokey')('POST', '/quotes', body)).statusCode, 401);
    assert.equal((await publicCall(t, keys.integrator)('POST', '/quotes', body)).statusCode, 400);
    assert.equal((await publicCall(t, keys.integrator)('POST', '/quotes', body, { 'x-customer-no': 'ZZZ' })).statusCode, 404);
    const asC1 = await publicCall(t, keys.integrator)('POST', '/quotes', body, { 'x-customer-no': 'C1' });
    assert.equal(asC1.statusCode, 200, asC1.body);
  });

  it('a change to freight rates, tax rates or routing is priced by the next quote (the kept reference data is versioned)', async () => {
    const body = { shipToCode: 'MAIN', lines: [{ sku: 'TEE-M', quantity: 1 }] };
    const before = (await c1('POST', '/quotes', body)).json();
    assert.deepEqual([before.shipping.amount, before.lines[0].tax.ratePercent], ['15.0000', '10.0000']);
    const push = pushThroughApp(t);
    await push('integration', '/fulfilment/freight-rates', [
      { id: 'F1', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minWeight: 0, maxWeight: 10, maxInvoiceValue: 1000, price: '16.5' },
    ]);
    await push('integration', '/tax/jurisdictions', [
      { code: 'AU', rates: [{ taxGroupCode: 'GOODS', ratePercent: 10, effectiveDate: '2020-01-01' }, { taxGroupCode: 'GOODS', ratePercent: 12.5, effectiveDate: '2026-01-01' }] },
    ]);
    const after = (await c1('POST', '/quotes', body)).json();
    assert.deepEqual([after.shipping.amount, after.lines[0].tax.ratePercent, after.lines[0].tax.amount], ['16.5000', '12.5000', '2.3800']); // 12.5 % of 19.00 is 2.375: a half, up to cents
    await push('integration', '/fulfilment/postcode-routing', [
      { id: 'R1', countryRegionCode: 'AU', postcode: '2001', defaultMethod: 'Road', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD' },
    ]);
    assert.equal((await c1('POST', '/quotes', body)).json().shipping.status, 'Unquotable', 'the routing row moved to another postcode');
    // Put the world back for the other tests.
    await pushTradingWorld(t);
    await push('integration', '/tax/jurisdictions', [{ code: 'AU', rates: [{ taxGroupCode: 'GOODS', ratePercent: 10, effectiveDate: '2020-01-01' }] }]);
    assert.equal((await c1('POST', '/quotes', body)).json().shipping.amount, '15.0000');
  });

  it('is in /openapi.json', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(doc.paths['/api/public/v1/quotes'].post);
    assert.ok(doc.paths['/api/public/v1/orders'].post);
    assert.ok(doc.paths['/api/public/v1/orders'].get);
    assert.ok(doc.paths['/api/public/v1/orders/{orderNumber}'].get);
    assert.ok(doc.paths['/api/integration/trading/order-line-updates'].put);
  });
});
