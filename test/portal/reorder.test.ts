import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addToBasket, readBasket } from '../../src/modules/baskets/baskets.service.js';
import type { Order, Quote } from '../../src/modules/orders/orders.schemas.js';
import { formatMoney } from '../../src/platform/format.js';
import { MESSAGES } from '../../src/portal/pages.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from '../modules/orders/orders-fixture.js';
import { Browser } from './portal-helpers.js';
import { plain, signedInBuyer, textOf } from './checkout-helpers.js';

/** "Order again" on the order page, through HTTP (app.inject) on a real PostgreSQL. */

describe('buyer portal: order again', () => {
  let t: TestApp;
  let c1: ReturnType<typeof publicCall>;
  let placed: Order;
  let theirs: Order;
  let quoteFor: (body: unknown) => Promise<Quote>;

  const place = async (call: ReturnType<typeof publicCall>, lines: Array<{ sku: string; quantity: number }>): Promise<Order> => {
    const res = await call('POST', '/orders', { shipToCode: 'MAIN', lines });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as Order;
  };
  /** The basket page's row of a SKU (its cells' text). */
  const rowOf = (html: string, sku: string): string => {
    const row = [...html.matchAll(/<tr id="line-\d+"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => textOf(m[1]!)).find((r) => r.includes(` ${sku} `));
    assert.ok(row, `a basket row for ${sku}`);
    return row;
  };
  const money = (amount: string | null) => plain(formatMoney(amount, 'AUD'));

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    // Two products C1 may buy today, and will not be able to by the time it orders again.
    let res = await putAdmin(t, '/brands', [{ code: 'OPEN', name: 'Open', restricted: false }]);
    assert.equal(res.statusCode, 200, res.body);
    res = await putBatch(t, '/catalogue/products', [
      { sku: 'DROP-1', name: 'Dropped', unitPrice: '7', weight: '0.1', taxGroupCode: 'GOODS' },
      { sku: 'LATE-1', name: 'Later restricted', unitPrice: '8', weight: '0.1', taxGroupCode: 'GOODS', brandCode: 'OPEN' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const keys = await tradingKeys(t);
    c1 = publicCall(t, keys.c1);
    quoteFor = async (body) => {
      const r = await c1('POST', '/quotes', body);
      assert.equal(r.statusCode, 200, r.body);
      return r.json() as Quote;
    };
    placed = await place(c1, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'DROP-1', quantity: 2 }, { sku: 'TEE-M', quantity: 2 }, { sku: 'LATE-1', quantity: 1 }]);
    theirs = await place(publicCall(t, keys.g1), [{ sku: 'CAP', quantity: 1 }]);

    // Since the order: TEE-S's quantity break is cheaper, DROP-1 is no longer sold, OPEN is restricted.
    res = await putBatch(t, '/pricing/rules', [{ ruleId: 'TEE-S-10', sourceType: 'AllCustomers', sku: 'TEE-S', amountType: 'Price', unitPrice: '16.5', minQuantity: 10 }]);
    assert.equal(res.statusCode, 200, res.body);
    res = await putBatch(t, '/catalogue/products', [{ sku: 'DROP-1', name: 'Dropped', unitPrice: '7', weight: '0.1', taxGroupCode: 'GOODS', blocked: true }]);
    assert.equal(res.statusCode, 200, res.body);
    res = await putAdmin(t, '/brands', [{ code: 'OPEN', name: 'Open', restricted: true }]);
    assert.equal(res.statusCode, 200, res.body);
  });
  after(async () => { await t.close(); });

  it('offers "Order again" on the order page, as a form with its token', async () => {
    const { b } = await signedInBuyer(t, 'offer@example.com', 'C1');
    const page = await b.get(`/orders/${placed.orderNumber}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`<form method="post" action="/orders/${placed.orderNumber}/reorder" novalidate>\\s*<input type="hidden" name="_csrf" value="[^"]+">`));
    assert.match(page.body, /<button type="submit" class="button button--secondary" aria-describedby="reorder-hint">Order again<\/button>/);
  });

  it('adds the lines still sold at today\'s prices, says which could not be added and why, and which are short of stock', async () => {
    const { b, owner } = await signedInBuyer(t, 'again@example.com', 'C1');
    await b.get(`/orders/${placed.orderNumber}`);
    const res = await b.post(`/orders/${placed.orderNumber}/reorder`, {});
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/basket');
    assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }]);

    const page = await b.get('/basket');
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    assert.ok(text.includes(`Added 2 of the 4 lines of order ${placed.orderNumber} to your basket, at today's prices.`), text);
    assert.ok(text.includes('Not added: DROP-1 is no longer available to your account.'), text);
    assert.ok(text.includes('Not added: LATE-1 is no longer available to your account.'), text);
    assert.ok(text.includes('Short of stock: TEE-S has 4 available now, so 8 of the 12 in your basket are on back order.'), text);
    assert.ok(text.includes('Short of stock: TEE-M has none available now, so all 2 in your basket are on back order.'), text);
    assert.match(page.body, /<div class="notice" role="status">\s*<p>Added 2 of the 4 lines[^<]*<\/p>\s*<ul class="reason-list">\s*<li>Not added: DROP-1/);

    // Today's price: the order was priced at 18.00 for TEE-S; the basket at the rule as it is now.
    assert.equal(placed.lines.find((l) => l.sku === 'TEE-S')!.unitPrice, '18.0000');
    const quote = await quoteFor({ shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }] });
    assert.equal(quote.lines[0]!.unitPrice, '16.5000');
    const tee = rowOf(page.body, 'TEE-S');
    assert.ok(tee.includes(money('16.5000')) && tee.includes(money(quote.lines[0]!.lineAmount)), tee);
    assert.ok(!tee.includes(money('18.0000')), tee);
    assert.ok(tee.includes('4 available now, 8 on back order'), 'the line shows its availability as ever');
    assert.ok(text.includes(`Total ${money(quote.totals.total)}`));
  });

  it('adds to a line already in the basket, as the other ways of adding do', async () => {
    const { b, owner } = await signedInBuyer(t, 'merge@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'CAP', quantity: 1 }, { sku: 'TEE-M', quantity: 3 }]);
    await b.get(`/orders/${placed.orderNumber}`);
    assert.equal((await b.post(`/orders/${placed.orderNumber}/reorder`, {})).statusCode, 303);
    assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'CAP', quantity: 1 }, { sku: 'TEE-M', quantity: 5 }, { sku: 'TEE-S', quantity: 12 }]);
    assert.match((await b.get('/basket')).body, /id="quantity-1" name="quantity" type="text" inputmode="numeric" autocomplete="off" value="5"/);
  });

  it('adds nothing again on reload: the message shows once, and the basket stays as it was', async () => {
    const { b, owner } = await signedInBuyer(t, 'reload@example.com', 'C1');
    await b.get(`/orders/${placed.orderNumber}`);
    assert.equal((await b.post(`/orders/${placed.orderNumber}/reorder`, {})).statusCode, 303);
    const first = await b.get('/basket');
    assert.match(first.body, /Added 2 of the 4 lines/);
    const again = await b.get('/basket');
    assert.equal(again.statusCode, 200);
    assert.doesNotMatch(again.body, /Added 2 of the 4 lines|Not added/);
    assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }]);
  });

  it('says so when no line can be added, and leaves the basket as it was', async () => {
    const only = await place(c1, [{ sku: 'TEE-M', quantity: 1 }]);
    await putBatch(t, '/catalogue/products', [{ sku: 'GONE-1', name: 'Gone', unitPrice: '1', weight: '0.1', taxGroupCode: 'GOODS' }]);
    const gone = await place(c1, [{ sku: 'GONE-1', quantity: 3 }]);
    await putBatch(t, '/catalogue/products', [{ sku: 'GONE-1', name: 'Gone', unitPrice: '1', weight: '0.1', taxGroupCode: 'GOODS', blocked: true }]);
    const { b, owner } = await signedInBuyer(t, 'nothing@example.com', 'C1');
    await b.get(`/orders/${gone.orderNumber}`);
    assert.equal((await b.post(`/orders/${gone.orderNumber}/reorder`, {})).statusCode, 303);
    const text = textOf((await b.get('/basket')).body);
    assert.ok(text.includes(`No line of order ${gone.orderNumber} could be added to your basket. Not added: GONE-1 is no longer available to your account.`), text);
    assert.deepEqual((await readBasket(t.pool, owner)).lines, []);
    // One line, all added.
    await b.get(`/orders/${only.orderNumber}`);
    assert.equal((await b.post(`/orders/${only.orderNumber}/reorder`, {})).statusCode, 303);
    assert.ok(textOf((await b.get('/basket')).body).includes(`Added the line of order ${only.orderNumber} to your basket, at today's prices.`));
  });

  it('answers another account\'s order exactly as a missing one, a 404 page, adding nothing', async () => {
    const { b, owner } = await signedInBuyer(t, 'nosy@example.com', 'C1');
    await b.get('/basket');
    const other = await b.post(`/orders/${theirs.orderNumber}/reorder`, {});
    const missing = await b.post('/orders/PW99999999/reorder', {});
    assert.equal(other.statusCode, 404);
    assert.equal(missing.statusCode, 404);
    assert.match(other.body, new RegExp(MESSAGES.notFound.title));
    const strip = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, '');
    assert.equal(strip(other.body), strip(missing.body));
    assert.doesNotMatch(String(other.headers['set-cookie'] ?? ''), /portway_flash/, 'no message is left for the basket');
    assert.deepEqual((await readBasket(t.pool, owner)).lines, []);
  });

  it('refuses the form without a valid token and a signed-out post, adding nothing', async () => {
    const { b, owner } = await signedInBuyer(t, 'csrf@example.com', 'C1');
    await b.get(`/orders/${placed.orderNumber}`);
    for (const token of [null, 'forged']) {
      const res = await b.post(`/orders/${placed.orderNumber}/reorder`, {}, token);
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /This form has expired/);
    }
    assert.deepEqual((await readBasket(t.pool, owner)).lines, []);

    const signedOut = new Browser(t);
    await signedOut.get('/sign-in');
    const res = await signedOut.post(`/orders/${placed.orderNumber}/reorder`, {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/sign-in');
  });
});
