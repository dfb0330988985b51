import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Order } from '../../src/modules/orders/orders.schemas.js';
import { formatMoney } from '../../src/platform/format.js';
import { ORDERS_PAGE_SIZE } from '../../src/portal/orders.routes.js';
import { MESSAGES } from '../../src/portal/pages.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from '../modules/orders/orders-fixture.js';
import { plain, signedInBuyer, textOf } from './checkout-helpers.js';

/** The orders pages through HTTP (app.inject): list, detail, derived status, another account's order. */

describe('buyer portal: orders', () => {
  let t: TestApp;
  let orders: Order[];

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    const keys = await tradingKeys(t);
    const c1 = publicCall(t, keys.c1);
    const g1 = publicCall(t, keys.g1);
    orders = [];
    // ORDERS_PAGE_SIZE + 1 orders of C1 (two pages), and one of G1.
    for (let i = 0; i <= ORDERS_PAGE_SIZE; i += 1) {
      const res = await c1('POST', '/orders', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }], customerReference: `PO-${i}` });
      assert.equal(res.statusCode, 201, res.body);
      orders.push(res.json() as Order);
    }
    const other = await g1('POST', '/orders', { shipToCode: 'MAIN', lines: [{ sku: 'CAP', quantity: 1 }] });
    assert.equal(other.statusCode, 201, other.body);
    orders.push(other.json() as Order);
  });
  after(async () => { await t.close(); });

  it('lists the account\'s orders newest first, paged, with number, date, PO number, status in words and total', async () => {
    const { b } = await signedInBuyer(t, 'list@example.com', 'C1');
    const first = await b.get('/orders');
    assert.equal(first.statusCode, 200);
    const text = textOf(first.body);
    const c1 = orders.slice(0, ORDERS_PAGE_SIZE + 1);
    const newest = c1[c1.length - 1]!;
    assert.ok(text.includes(`${ORDERS_PAGE_SIZE + 1} orders, newest first. Page 1 of 2.`), text);
    const rows = [...first.body.matchAll(/<a href="\/orders\/(PW\d+)">/g)].map((m) => m[1]);
    assert.equal(rows.length, ORDERS_PAGE_SIZE);
    assert.equal(rows[0], newest.orderNumber);
    assert.ok(text.includes(`Order ${newest.orderNumber}`));
    assert.ok(text.includes(`PO-${ORDERS_PAGE_SIZE}`));
    assert.ok(text.includes(plain(formatMoney(newest.totals.total, newest.currency))));
    assert.ok(text.includes('Pending'));
    assert.match(first.body, /<a href="\/orders\?page=2" rel="next">Next/);
    assert.ok(!rows.includes(orders[orders.length - 1]!.orderNumber), 'another account\'s order is not listed');

    const second = await b.get('/orders?page=2');
    assert.equal(second.statusCode, 200);
    assert.deepEqual([...second.body.matchAll(/<a href="\/orders\/(PW\d+)">/g)].map((m) => m[1]), [c1[0]!.orderNumber]);
    assert.match(second.body, /<a href="\/orders\?page=1" rel="prev">Previous/);
    const bad = await b.get('/orders?page=0');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /The form could not be read/);
  });

  it('shows an order\'s lines, quantities, charges, totals, ship-to and hand-off, the status moving with the ERP\'s line updates', async () => {
    const { b } = await signedInBuyer(t, 'detail@example.com', 'C1');
    const order = orders[0]!;
    const url = `/orders/${order.orderNumber}`;
    const page = await b.get(url);
    let text = textOf(page.body);
    assert.ok(text.includes(`Order ${order.orderNumber}`));
    assert.ok(text.includes('Status Pending'));
    assert.ok(text.includes('Deliver to MAIN Main store, Sydney, 2000, AU'), text);
    assert.ok(text.includes('Purchase order PO-0'));
    assert.ok(text.includes('Order system Queued: waiting to be sent to our order system'));
    assert.ok(text.includes('TEE-S Tee S 12 0 0 0 Pending'), text);
    const money = (a: string | null) => plain(formatMoney(a, order.currency));
    for (const line of order.lines) for (const a of [line.unitPrice, line.lineAmount, line.taxAmount]) assert.ok(text.includes(money(a)));
    // Charges and totals apart, each under its own heading; freight in words, not the stored codes.
    const { shipping } = order;
    assert.equal(order.charges[0]!.description, `Freight: ${shipping.method} ${shipping.agentCode}/${shipping.serviceCode}`);
    const sections = text.slice(text.indexOf('Charges Charges of order'));
    assert.ok(sections.startsWith(`Charges Charges of order ${order.orderNumber} Charge Tax Amount Road freight (carrier ${shipping.agentCode}, service ${shipping.serviceCode}) ${money('0')} ${money(order.charges[0]!.amount)} Totals Net`), sections);
    assert.match(page.body, /<section class="order-section" aria-labelledby="charges-title">\s*<h2 id="charges-title">Charges<\/h2>/);
    assert.match(page.body, /<section class="order-section" aria-labelledby="totals-title">\s*<h2 id="totals-title">Totals<\/h2>/);
    for (const [label, a] of Object.entries({ Net: order.totals.net, Tax: order.totals.tax, Freight: order.totals.freight, Total: order.totals.total })) {
      assert.ok(text.includes(`${label} ${money(a)}`), label);
    }

    const q = (i: number, s: number, c: number) => ({ invoicedQuantity: i, shippedQuantity: s, cancelledQuantity: c });
    let res = await putBatch(t, '/trading/order-line-updates', [
      { orderNumber: order.orderNumber, lineNumber: 1, ...q(12, 5, 0), lastUpdatedAt: '2026-11-24T10:00:00Z' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    text = textOf((await b.get(url)).body);
    assert.ok(text.includes('Status Part shipped'));
    assert.ok(text.includes('TEE-S Tee S 12 12 5 0 Part shipped'), text);
    res = await putBatch(t, '/trading/order-line-updates', [
      { orderNumber: order.orderNumber, lineNumber: 1, ...q(12, 12, 0), lastUpdatedAt: '2026-11-24T11:00:00Z' },
      { orderNumber: order.orderNumber, lineNumber: 2, ...q(0, 0, 2), lastUpdatedAt: '2026-11-24T11:00:00Z' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    text = textOf((await b.get(url)).body);
    assert.ok(text.includes('Status Shipped'));
    assert.ok(text.includes('TEE-M Tee M 2 0 0 2 Cancelled'), text);
    const list = textOf((await b.get('/orders?page=2')).body);
    assert.ok(list.includes('Shipped'), 'the list derives the same status');
  });

  it('answers another account\'s order exactly as a missing one: a 404 page', async () => {
    const { b } = await signedInBuyer(t, 'nosy@example.com', 'C1');
    const theirs = await b.get(`/orders/${orders[orders.length - 1]!.orderNumber}`);
    const missing = await b.get('/orders/PW99999999');
    assert.equal(theirs.statusCode, 404);
    assert.equal(missing.statusCode, 404);
    assert.match(theirs.body, new RegExp(MESSAGES.notFound.title));
    const strip = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, '');
    assert.equal(strip(theirs.body), strip(missing.body));
    // Nothing of the other account's order is on the page (its text: a random CSRF token could hold "G1").
    assert.doesNotMatch(textOf(theirs.body), /\bG1\b|\bCAP\b/);
  });
});
