import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { addToBasket } from '../../../src/modules/baskets/baskets.service.js';
import { loadErpOrder } from '../../../src/modules/orders/erp.repository.js';
import { insertOrder, type NewOrderLine } from '../../../src/modules/orders/orders.repository.js';
import type { Order, Quote } from '../../../src/modules/orders/orders.schemas.js';
import { Dec, unitsText } from '../../../src/platform/decimal.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { signedInBuyer, textOf } from '../../portal/checkout-helpers.js';
import type { Browser } from '../../portal/portal-helpers.js';
import { publicCall, pushTradingWorld, tradingKeys } from './orders-fixture.js';

/**
 * Document amounts through the real app (decisions §6, "Document amounts add up"): the quote, the
 * order as placed, as read back, as stored, as handed to the ERP and as the portal shows it agree
 * to the cent; an order placed before the rule keeps the amounts it was placed with.
 */

/** The order page's figures, as a buyer reads them. */
function orderPage(html: string) {
  const cells = (label: string) => [...html.matchAll(new RegExp(`data-label="${label}" class="num">([^<]*)<`, 'g'))].map((m) => m[1]!.trim());
  const total = (label: string) => new RegExp(`<dt>${label}</dt><dd class="num">([^<]*)<`).exec(html)?.[1]?.trim();
  return {
    unitPrices: cells('Unit price'), taxes: cells('Tax'), amounts: cells('Amount'),
    net: total('Net'), tax: total('Tax'), freight: total('Freight'), total: total('Total'),
  };
}

/** "AUD 1,234.56" → "1234.56". */
const digits = (shown: string | undefined): string => (shown ?? '').replace(/^AUD\u00a0/, '').replace(/,/g, '');
const AUD = (amount: string): string => `AUD\u00a0${amount}`;

describe('document amounts over HTTP: quote, order, read-back, ERP body and portal agree to the cent', () => {
  let t: TestApp;
  let c1: ReturnType<typeof publicCall>;
  let buyer: Browser;
  let owner: { userId: string; accountNo: string };

  before(async () => {
    t = await buildTestApp({ SITE_CURRENCY: 'AUD' });
    await pushTradingWorld(t);
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'P-21', name: 'Four-place price', unitPrice: '21.7525', weight: '0.1', taxGroupCode: 'GOODS' },
      { sku: 'P-39', name: 'Two-place price', unitPrice: '39.95', weight: '0.1', taxGroupCode: 'GOODS' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    c1 = publicCall(t, (await tradingKeys(t)).c1);
    ({ b: buyer, owner } = await signedInBuyer(t, 'amounts@example.com', 'C1'));
  });
  after(async () => { await t.close(); });

  it('3 × 21.7525 and 2 × 39.95: lines 65.26 and 79.90, each line\'s tax on its rounded amount, totals that are their sums', async () => {
    const basket = { shipToCode: 'MAIN', lines: [{ sku: 'P-21', quantity: 3 }, { sku: 'P-39', quantity: 2 }] };
    const quote = (await c1('POST', '/quotes', basket)).json() as Quote;
    assert.deepEqual(quote.lines.map((l) => [l.unitPrice, l.lineAmount, l.tax.amount]), [
      ['21.7525', '65.2600', '6.5300'], // 65.2575 → 65.26; 10 % = 6.526 → 6.53
      ['39.9500', '79.9000', '7.9900'],
    ]);
    const expectedTotals = {
      net: '145.1600', tax: '14.5200', freight: '15.0000', total: '174.6800',
      display: { net: '145.16', tax: '14.52', freight: '15.00', total: '174.68' },
    };
    assert.deepEqual(quote.totals, expectedTotals);

    // The portal's basket shows the same figures.
    await addToBasket(t.pool, owner, basket.lines);
    const basketText = textOf((await buyer.get('/basket')).body);
    for (const shown of ['AUD 21.7525', 'AUD 65.26', 'AUD 6.53', 'AUD 39.95', 'AUD 79.90', 'AUD 7.99', 'Net AUD 145.16', 'Tax AUD 14.52', 'Freight AUD 15.00', 'Total AUD 174.68']) {
      assert.ok(basketText.includes(shown), `the basket page shows ${shown}: ${basketText}`);
    }

    const placed = await c1('POST', '/orders', basket);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json() as Order;
    assert.deepEqual(order.lines.map((l) => [l.unitPrice, l.lineAmount, l.taxAmount]), [['21.7525', '65.2600', '6.5300'], ['39.9500', '79.9000', '7.9900']]);
    assert.deepEqual(order.charges.map((c) => [c.amount, c.taxAmount]), [['15.0000', '0.0000']]);
    assert.deepEqual(order.totals, expectedTotals);
    assert.deepEqual((await c1('GET', `/orders/${order.orderNumber}`)).json(), order, 'read back exactly as placed');

    const stored = await t.pool.query<{ line_amount: string; tax_amount: string }>(
      'SELECT line_amount::text, tax_amount::text FROM order_lines WHERE order_number = $1 ORDER BY line_number', [order.orderNumber],
    );
    assert.deepEqual(stored.rows.map((r) => [r.line_amount, r.tax_amount]), [['65.2600', '6.5300'], ['79.9000', '7.9900'], ['15.0000', '0.0000']]);

    const erp = JSON.parse(JSON.stringify(await loadErpOrder(t.pool, order.orderNumber)));
    assert.deepEqual(erp.lines.map((l: { quantity: number; unitPrice: string; lineAmount: string; taxAmount: string }) => [l.quantity, l.unitPrice, l.lineAmount, l.taxAmount]), [
      [3, '21.7525', '65.2600', '6.5300'], [2, '39.9500', '79.9000', '7.9900'],
    ]);
    assert.deepEqual(erp.charges.map((c: { amount: string }) => c.amount), ['15.0000']);
    assert.deepEqual(erp.totals, { net: '145.1600', tax: '14.5200', freight: '15.0000', total: '174.6800' });

    const page = orderPage((await buyer.get(`/orders/${order.orderNumber}`)).body);
    assert.deepEqual(page, {
      unitPrices: [AUD('21.7525'), AUD('39.95')], taxes: [AUD('6.53'), AUD('7.99')], amounts: [AUD('65.26'), AUD('79.90')],
      net: AUD('145.16'), tax: AUD('14.52'), freight: AUD('15.00'), total: AUD('174.68'),
    });
    assert.ok(textOf((await buyer.get('/orders')).body).includes('AUD 174.68'), 'the orders list shows the same total');
  });

  it('an order placed before the rule keeps its 4-place amounts: read back, handed to the ERP and shown as placed', async () => {
    // As the earlier code stored it: the ERP contract's old example, amounts kept to 4 places.
    const orderNumber = 'PW09999999';
    const line = (n: number, fields: Partial<NewOrderLine>): NewOrderLine => ({
      order_line_id: randomUUID(), line_number: n, line_type: 'Item', charge_type: null, sku: 'P-21', description: 'Tee black M', quantity: 3,
      unit_price: null, line_discount_percent: null, line_amount: '0', tax_amount: '0', tax_rate_percent: null, tax_reason: null, pricing: null, tax: null, ...fields,
    });
    const pricing = { basis: 'list', listPrice: '19.5773', priceRuleId: null, discountRuleId: null, lineDiscountPercent: null };
    const tax = { amount: '5.8732', ratePercent: '10.0000', basis: 'Jurisdictions', reason: null, taxAreaCode: 'NSW', components: [{ code: 'AU', ratePercent: '10.0000', effectiveDate: '2020-01-01' }] };
    await insertOrder(t.pool, {
      order_number: orderNumber, account_no: 'C1', ship_to_code: 'MAIN', ship_to: { shipToCode: 'MAIN' }, customer_reference: null, currency: 'AUD',
      placed_at: '2025-11-03T04:05:06.789Z', placed_by_user_id: null, net_amount: '58.7319', tax_amount: '5.8732', freight_amount: '12.5000', total_amount: '77.1051',
      shipping: { status: 'Quoted', amount: '12.5000', method: 'Road', agentCode: 'TNT', serviceCode: 'ROAD', routingId: 'R1', basis: 'Rate', rateId: 'F1', packages: [], weight: '0.3000', value: '58.7319' },
    }, [
      line(1, { unit_price: '19.5773', line_amount: '58.7319', tax_amount: '5.8732', tax_rate_percent: '10.0000', pricing, tax }),
      line(2, { line_type: 'Charge', charge_type: 'Freight', sku: null, description: 'Road freight', quantity: 1, unit_price: '12.5000', line_amount: '12.5000', tax_amount: '0.0000', tax_reason: 'Freight is not taxed' }),
    ]);

    const order = (await c1('GET', `/orders/${orderNumber}`)).json() as Order;
    assert.deepEqual(order.lines.map((l) => [l.unitPrice, l.lineAmount, l.taxAmount]), [['19.5773', '58.7319', '5.8732']]);
    assert.deepEqual(order.totals, {
      net: '58.7319', tax: '5.8732', freight: '12.5000', total: '77.1051',
      display: { net: '58.73', tax: '5.87', freight: '12.50', total: '77.11' },
    });
    const erp = JSON.parse(JSON.stringify(await loadErpOrder(t.pool, orderNumber)));
    assert.deepEqual([erp.lines[0].lineAmount, erp.lines[0].taxAmount, erp.totals], ['58.7319', '5.8732', { net: '58.7319', tax: '5.8732', freight: '12.5000', total: '77.1051' }]);
    // The portal rounds nothing: the amounts as placed, which add up as they are.
    const page = orderPage((await buyer.get(`/orders/${orderNumber}`)).body);
    assert.deepEqual(page, {
      unitPrices: [AUD('19.5773')], taxes: [AUD('5.8732')], amounts: [AUD('58.7319')],
      net: AUD('58.7319'), tax: AUD('5.8732'), freight: AUD('12.50'), total: AUD('77.1051'),
    });
  });

  it('over generated baskets, prices, tax rates and freight (fast-check): every figure agrees and adds up', async () => {
    let run = 0;
    const four = (units: bigint) => unitsText(units, 4);
    const cents = (value: Dec) => value.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ price: fc.bigInt({ min: 1n, max: 99_999_999n }), quantity: fc.integer({ min: 1, max: 500 }) }), { minLength: 1, maxLength: 6 }),
      fc.bigInt({ min: 0n, max: 250_000n }), // the tax rate, 0 to 25 %, 4 places
      fc.bigInt({ min: 0n, max: 9_999_999n }), // the freight rate's price, 4 places
      async (lines, rate, freightPrice) => {
        run += 1;
        const skus = lines.map((_, i) => `G${run}-${i}`);
        const push = async (url: string, data: unknown[]) => assert.equal((await putBatch(t, url, data)).statusCode, 200);
        await push('/catalogue/products', lines.map((l, i) => ({ sku: skus[i], name: `Generated ${i}`, unitPrice: four(l.price), weight: '0.01', taxGroupCode: 'GOODS' })));
        await push('/tax/jurisdictions', [{ code: 'AU', rates: [{ taxGroupCode: 'GOODS', ratePercent: four(rate), effectiveDate: '2020-01-01' }] }]);
        await push('/fulfilment/freight-rates', ['F1', 'F2', 'F3'].map((id, i) => ({
          id, countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', price: four(freightPrice),
          ...[{ minWeight: 0, maxWeight: 10, maxInvoiceValue: 1000 }, { minWeight: 10, maxInvoiceValue: 1000 }, { minInvoiceValue: 1000 }][i],
        })));
        const basket = { shipToCode: 'MAIN', lines: lines.map((l, i) => ({ sku: skus[i], quantity: l.quantity })) };

        const quote = (await c1('POST', '/quotes', basket)).json() as Quote;
        assert.equal(quote.orderable, true, JSON.stringify(quote.reasons));
        const placed = await c1('POST', '/orders', basket);
        assert.equal(placed.statusCode, 201, placed.body);
        const order = placed.json() as Order;
        const readBack = (await c1('GET', `/orders/${order.orderNumber}`)).json() as Order;
        const erp = JSON.parse(JSON.stringify(await loadErpOrder(t.pool, order.orderNumber)));
        const page = orderPage((await buyer.get(`/orders/${order.orderNumber}`)).body);

        // The API: each line = round(quantity × unit price), its tax = round(line × rate), the totals their sums.
        quote.lines.forEach((l, i) => {
          assert.equal(l.unitPrice, four(lines[i]!.price), 'the unit price is applied as written');
          assert.ok(new Dec(l.lineAmount!).equals(cents(new Dec(l.unitPrice!).times(l.quantity))), `${l.quantity} × ${l.unitPrice} = ${l.lineAmount}`);
          assert.ok(new Dec(l.tax.amount).equals(cents(new Dec(l.lineAmount!).times(four(rate)).dividedBy(100))), `tax of ${l.lineAmount} at ${four(rate)} %`);
        });
        const sum = (xs: string[]) => xs.reduce((a, b) => a.plus(b), new Dec(0));
        assert.ok(sum(quote.lines.map((l) => l.lineAmount!)).equals(quote.totals.net));
        assert.ok(sum(quote.lines.map((l) => l.tax.amount)).equals(quote.totals.tax));
        assert.ok(new Dec(quote.totals.freight).equals(cents(new Dec(four(freightPrice)))));
        assert.ok(sum([quote.totals.net, quote.totals.tax, quote.totals.freight]).equals(quote.totals.total));

        // The order as placed and read back, and the ERP body: the quote's figures, to the cent.
        const figures = (o: Order) => [o.lines.map((l) => [l.unitPrice, l.lineAmount, l.taxAmount]), o.charges.map((c) => c.amount), o.totals];
        assert.deepEqual(figures(order), [quote.lines.map((l) => [l.unitPrice, l.lineAmount, l.tax.amount]), [quote.totals.freight], quote.totals]);
        assert.deepEqual(readBack, order);
        assert.deepEqual(
          [erp.lines.map((l: { unitPrice: string; lineAmount: string; taxAmount: string }) => [l.unitPrice, l.lineAmount, l.taxAmount]), erp.charges.map((c: { amount: string }) => c.amount), erp.totals],
          [order.lines.map((l) => [l.unitPrice, l.lineAmount, l.taxAmount]), [order.totals.freight], { net: order.totals.net, tax: order.totals.tax, freight: order.totals.freight, total: order.totals.total }],
        );

        // The portal: each shown line = round(quantity × shown unit price); Σ shown lines = shown net; net + tax + freight = total.
        assert.deepEqual([page.unitPrices.length, page.amounts.length, page.taxes.length], [lines.length, lines.length, lines.length]);
        page.amounts.forEach((shown, i) => {
          assert.ok(new Dec(digits(shown)).equals(cents(new Dec(digits(page.unitPrices[i])).times(lines[i]!.quantity))), `shown ${shown} = ${lines[i]!.quantity} × ${page.unitPrices[i]}`);
          assert.ok(new Dec(digits(shown)).equals(order.lines[i]!.lineAmount), 'the page shows the API\'s line amount');
        });
        assert.ok(sum(page.amounts.map(digits)).equals(digits(page.net)), 'Σ shown lines = shown net');
        assert.ok(sum(page.taxes.map(digits)).equals(digits(page.tax)), 'Σ shown taxes = shown tax');
        assert.ok(sum([digits(page.net), digits(page.tax), digits(page.freight)]).equals(digits(page.total)), 'net + tax + freight = total');
        assert.ok(new Dec(digits(page.total)).equals(order.totals.total), 'the page shows the API\'s total');
      },
    ), { numRuns: 15 });
    assert.equal(run, 15);
  });
});

describe('document amounts in a currency without a minor unit (SITE_CURRENCY=JPY)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ SITE_CURRENCY: 'JPY' });
    await pushTradingWorld(t);
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'P-21', name: 'Four-place price', unitPrice: '21.7525', weight: '0.1', taxGroupCode: 'GOODS' }])).statusCode, 200);
  });
  after(async () => { await t.close(); });

  it('rounds each line, its tax and the freight to whole yen; the unit price stays as written', async () => {
    const c1 = publicCall(t, (await tradingKeys(t)).c1);
    const quote = (await c1('POST', '/quotes', { shipToCode: 'MAIN', lines: [{ sku: 'P-21', quantity: 3 }] })).json() as Quote;
    assert.equal(quote.currency, 'JPY');
    assert.deepEqual([quote.lines[0]!.unitPrice, quote.lines[0]!.lineAmount, quote.lines[0]!.tax.amount], ['21.7525', '65.0000', '7.0000']); // 65.2575 → 65; 6.5 → 7
    assert.deepEqual(quote.totals, {
      net: '65.0000', tax: '7.0000', freight: '15.0000', total: '87.0000',
      display: { net: '65', tax: '7', freight: '15', total: '87' },
    });
  });
});
