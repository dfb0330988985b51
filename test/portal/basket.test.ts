import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addToBasket, readBasket } from '../../src/modules/baskets/baskets.service.js';
import type { Quote } from '../../src/modules/orders/orders.schemas.js';
import { basketOrderKey } from '../../src/portal/basket.routes.js';
import { formatMoney } from '../../src/platform/format.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from '../modules/orders/orders-fixture.js';
import { Browser } from './portal-helpers.js';
import { PASSWORD, plain, postFields, signedInBuyer, textOf, versionOf } from './checkout-helpers.js';

/** The basket page and placing its order, through HTTP (app.inject) on a real PostgreSQL. */

describe('buyer portal: basket and placing the order', () => {
  let t: TestApp;
  let quoteFor: (body: unknown) => Promise<Quote>;
  const count = async (sql: string, params: unknown[] = []) => Number((await t.pool.query<{ n: number }>(sql, params)).rows[0]?.n);

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    // A priced product without a tax group: its line is untaxed, with the tax engine's reason.
    const res = await putBatch(t, '/catalogue/products', [{ sku: 'NOTAX', name: 'No tax group', unitPrice: '3', weight: '0.1' }]);
    assert.equal(res.statusCode, 200, res.body);
    const c1 = publicCall(t, (await tradingKeys(t)).c1);
    quoteFor = async (body) => {
      const r = await c1('POST', '/quotes', body);
      assert.equal(r.statusCode, 200, r.body);
      return r.json() as Quote;
    };
  });
  after(async () => { await t.close(); });

  it('sends a signed-out buyer to sign in, for every page and form', async () => {
    const b = new Browser(t);
    for (const url of ['/basket', '/orders', '/orders/PW00000001', '/account', '/account/ledger']) {
      const res = await b.get(url);
      assert.equal(res.statusCode, 303, url);
      assert.equal(res.headers.location, `/sign-in?next=${encodeURIComponent(url)}`);
    }
    await b.get('/sign-in');
    for (const url of ['/basket/update', '/basket/checkout', '/basket/order']) {
      const res = await b.post(url, {});
      assert.equal(res.statusCode, 303, url);
      assert.equal(res.headers.location, '/sign-in');
    }
  });

  it('says an empty basket is empty, with a link to search', async () => {
    const { b } = await signedInBuyer(t, 'empty@example.com', 'C1');
    const page = await b.get('/basket');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Your basket is empty/);
    assert.match(page.body, /<a href="\/">Search for products<\/a>/);
    assert.doesNotMatch(page.body, /action="\/basket\/order"/);
  });

  it('shows the quote of the basket: each line, availability, tax, freight and totals as priceBasket gives them', async () => {
    const { b, owner } = await signedInBuyer(t, 'quote@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }, { sku: 'CAP', quantity: 3 }]);
    const page = await b.get('/basket');
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    // No ship-to chosen yet: the account's default (MAIN) is priced and preselected.
    assert.match(page.body, /value="MAIN" checked/);
    const quote = await quoteFor({ shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }, { sku: 'CAP', quantity: 3 }] });
    assert.equal(quote.orderable, true);
    const money = (amount: string | null) => plain(formatMoney(amount, quote.currency));
    for (const line of quote.lines) {
      assert.ok(text.includes(`${line.sku} ${line.name}`), line.sku);
      for (const amount of [line.unitPrice, line.lineAmount, line.tax.amount]) assert.ok(text.includes(money(amount)), `${line.sku} ${amount}`);
    }
    assert.ok(text.includes(money('18.0000')), 'the quantity break of TEE-S applies');
    // TEE-S: 4 available (5 on hand − 1 reserved), 8 on back order covered by 3 + 10 incoming by 15 Dec.
    assert.ok(text.includes('4 available now, 8 on back order (expected 15 Dec 2026)'), text);
    assert.ok(text.includes('On back order (no delivery date expected yet)'), 'CAP has no stock and nothing incoming');
    assert.ok(text.includes('Road freight (carrier TNT, service ROAD)'), text);
    for (const [label, amount] of Object.entries({ Net: quote.totals.net, Tax: quote.totals.tax, Freight: quote.totals.freight, Total: quote.totals.total })) {
      assert.ok(text.includes(`${label} ${money(amount)}`), `${label} ${amount}`);
    }
    assert.match(page.body, /<button type="submit" class="button" formaction="\/basket\/order">Place order<\/button>/);
    assert.doesNotMatch(text, /You cannot place this order yet/);
  });

  it('says every reason in words: an unquotable ship-to, an untaxed line, an unpriced line', async () => {
    const { b, owner } = await signedInBuyer(t, 'reasons@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }, { sku: 'NOTAX', quantity: 2 }, { sku: 'NOPRICE', quantity: 1 }]);
    await b.get('/basket');
    const saved = await b.post('/basket/checkout', { shipToCode: 'FAR', customerReference: '' });
    assert.equal(saved.statusCode, 303);
    const page = await b.get('/basket');
    const text = textOf(page.body);
    const quote = await quoteFor({ shipToCode: 'FAR', lines: [{ sku: 'TEE-M', quantity: 1 }, { sku: 'NOTAX', quantity: 2 }, { sku: 'NOPRICE', quantity: 1 }] });
    assert.equal(quote.orderable, false);
    assert.equal(quote.shipping.status, 'Unquotable');
    assert.ok(text.includes('You cannot place this order yet'));
    assert.ok(text.includes(`Delivery to ship-to FAR cannot be quoted: ${quote.shipping.reason}`), text);
    assert.ok(text.includes('NOPRICE (No price) has no price for your account'), text);
    const untaxed = quote.lines.find((l) => l.sku === 'NOTAX')!;
    assert.equal(untaxed.tax.basis, 'Untaxed');
    assert.ok(text.includes(`NOTAX (No tax group) is not taxed: ${untaxed.tax.reason}`), text);
    assert.ok(text.includes(`Not taxed: ${untaxed.tax.reason}`), 'the line itself says so too');
    assert.doesNotMatch(page.body, /action="\/basket\/order"/);
  });

  it('updates quantities in one form, removes with 0 or the line\'s button, and shows a bad quantity in an error summary', async () => {
    const { b, owner } = await signedInBuyer(t, 'update@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-S', quantity: 1 }, { sku: 'TEE-M', quantity: 2 }, { sku: 'CAP', quantity: 3 }]);
    await b.get('/basket');
    let res = await postFields(t, b, '/basket/update', [['sku', 'TEE-S'], ['quantity', '5'], ['sku', 'TEE-M'], ['quantity', '0'], ['sku', 'CAP'], ['quantity', '3']]);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/basket?done=updated');
    assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'TEE-S', quantity: 5 }, { sku: 'CAP', quantity: 3 }]);
    assert.match((await b.get('/basket?done=updated')).body, /Your basket has been updated/);

    res = await postFields(t, b, '/basket/update', [['sku', 'TEE-S'], ['quantity', 'two'], ['sku', 'CAP'], ['quantity', '3']]);
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /<title>Error: Your basket/);
    assert.match(res.body, /class="error-summary"[\s\S]*<a href="#quantity-0">Enter the quantity of TEE-S as a whole number, 0 to remove it<\/a>/);
    assert.match(res.body, /id="quantity-0" name="quantity" type="text" inputmode="numeric" autocomplete="off" value="two" aria-invalid="true" aria-describedby="quantity-0-error"/);
    assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'TEE-S', quantity: 5 }, { sku: 'CAP', quantity: 3 }], 'nothing changed');

    res = await postFields(t, b, '/basket/update', [['sku', 'TEE-S'], ['quantity', '5'], ['sku', 'CAP'], ['quantity', '3'], ['remove', 'TEE-S']]);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/basket?done=removed');
    assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'CAP', quantity: 3 }]);
  });

  it('keeps the ship-to and purchase-order number across signing out and in; refuses an unknown ship-to and a long PO number', async () => {
    const { b, owner } = await signedInBuyer(t, 'keep@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    await b.get('/basket');
    let res = await b.post('/basket/checkout', { shipToCode: 'NOPE', customerReference: 'x'.repeat(36) });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /<a href="#shipToCode">Choose where to deliver the order<\/a>/);
    assert.match(res.body, /<a href="#customerReference">Purchase order number must be 35 characters or fewer<\/a>/);
    res = await b.post('/basket/checkout', { shipToCode: 'FN', customerReference: 'PO-77' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/basket?done=saved');
    await b.post('/sign-out', {});
    const again = new Browser(t);
    await again.signIn('keep@example.com', PASSWORD);
    const page = await again.get('/basket');
    assert.match(page.body, /value="FN" checked/);
    assert.match(page.body, /id="customerReference" name="customerReference" type="text" autocomplete="off" value="PO-77"/);
    // The First Nations destination is exempt, in words.
    assert.match(textOf(page.body), /Exempt: /);
  });

  it('shows a line the account can no longer buy as no longer available, with a remove button, and prices the rest', async () => {
    const { b, owner } = await signedInBuyer(t, 'hidden@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 2 }, { sku: 'HID-1', quantity: 1 }]);
    const page = await b.get('/basket');
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    assert.ok(text.includes('HID-1 No longer available'), text);
    assert.ok(text.includes('HID-1 is no longer available to your account: remove it to order the rest.'));
    assert.match(page.body, /name="remove" value="HID-1">Remove<span class="visually-hidden"> HID-1<\/span>/);
    const quote = await quoteFor({ shipToCode: 'MAIN', lines: [{ sku: 'TEE-M', quantity: 2 }] });
    assert.ok(text.includes(`Total ${plain(formatMoney(quote.totals.total, quote.currency))}`));
    assert.doesNotMatch(page.body, /action="\/basket\/order"/);
    const res = await postFields(t, b, '/basket/update', [['sku', 'TEE-M'], ['quantity', '2'], ['sku', 'HID-1'], ['quantity', '1'], ['remove', 'HID-1']]);
    assert.equal(res.statusCode, 303);
    assert.match((await b.get('/basket')).body, /action="\/basket\/order"/);
  });

  it('places one order for a form posted twice, empties the basket (keeping the ship-to) and shows the order', async () => {
    const { b, owner } = await signedInBuyer(t, 'order@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }]);
    await b.get('/basket');
    await b.post('/basket/checkout', { shipToCode: 'MAIN', customerReference: 'PO-4711' });
    const page = await b.get('/basket');
    const version = versionOf(page.body);
    const before = await count('SELECT count(*)::int AS n FROM orders');
    const first = await b.post('/basket/order', { version, shipToCode: 'MAIN' });
    assert.equal(first.statusCode, 303, first.body);
    assert.match(first.headers.location as string, /^\/orders\/PW\d+$/);
    const second = await b.post('/basket/order', { version, shipToCode: 'MAIN' });
    assert.equal(second.statusCode, 303);
    assert.equal(second.headers.location, first.headers.location, 'the second post lands on the same order');
    assert.equal(await count('SELECT count(*)::int AS n FROM orders'), before + 1);

    const basket = await readBasket(t.pool, owner);
    assert.deepEqual(basket.lines, []);
    assert.equal(basket.shipToCode, 'MAIN');
    assert.equal(basket.customerReference, null);

    const order = await b.get(first.headers.location as string);
    assert.equal(order.statusCode, 200);
    const text = textOf(order.body);
    assert.ok(text.includes('Order placed'));
    assert.match(order.body, /<h1 class="panel-confirmation__title">Order placed<\/h1>/);
    // Said once: a reload shows the order alone, under its own heading.
    const reloaded = await b.get(first.headers.location as string);
    assert.equal(reloaded.statusCode, 200);
    assert.ok(!textOf(reloaded.body).includes('Order placed'), 'the banner is not shown again');
    assert.match(reloaded.body, /<h1>Order PW\d+<\/h1>/);
    assert.ok(text.includes('TEE-S Tee S 12'), text);
    assert.ok(text.includes('TEE-M Tee M 2'));
    assert.ok(text.includes('Purchase order PO-4711'));
    assert.ok(text.includes('Queued: waiting to be sent to our order system'));
    assert.match((await b.get('/basket')).body, /Your basket is empty/);
  });

  it('places one order when the same form arrives twice at once (a double click), both answers on that order', async () => {
    const { b, owner } = await signedInBuyer(t, 'double@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 3 }]);
    const version = versionOf((await b.get('/basket')).body);
    const [one, two] = await Promise.all([b.post('/basket/order', { version, shipToCode: 'MAIN' }), b.post('/basket/order', { version, shipToCode: 'MAIN' })]);
    assert.equal(one.statusCode, 303, one.body);
    assert.equal(two.statusCode, 303, two.body);
    const number = (res: typeof one) => /^\/orders\/(PW\d+)$/.exec(res.headers.location as string)?.[1];
    assert.ok(number(one), one.headers.location as string);
    assert.equal(number(two), number(one));
    assert.equal(await count("SELECT count(*)::int AS n FROM order_lines l JOIN orders o USING (order_number) WHERE o.account_no = 'C1' AND l.sku = 'TEE-M' AND l.quantity = 3"), 1);
    assert.deepEqual((await readBasket(t.pool, owner)).lines, []);
  });

  it('places the order with the purchase-order number as typed on the page, saved or not; a long one places nothing', async () => {
    const { b, owner } = await signedInBuyer(t, 'typed-po@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    await b.post('/basket/checkout', { shipToCode: 'MAIN', customerReference: 'PO-SAVED' });
    const page = await b.get('/basket');
    const version = versionOf(page.body);
    assert.match(page.body, /name="pricedShipToCode" value="MAIN"/);
    assert.match(page.body, /formaction="\/basket\/order">Place order/);
    const before = await count('SELECT count(*)::int AS n FROM orders');

    const long = await b.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: 'x'.repeat(36) });
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /<a href="#customerReference">Purchase order number must be 35 characters or fewer<\/a>/);
    assert.ok(textOf(long.body).includes('Your order was not placed.'));
    assert.equal(await count('SELECT count(*)::int AS n FROM orders'), before);

    const res = await b.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: ' PO-TYPED ' });
    assert.equal(res.statusCode, 303, res.body);
    const orderNumber = /^\/orders\/(PW\d+)$/.exec(res.headers.location as string)?.[1];
    const { rows } = await t.pool.query('SELECT ship_to_code, customer_reference FROM orders WHERE order_number = $1', [orderNumber]);
    assert.deepEqual(rows, [{ ship_to_code: 'MAIN', customer_reference: 'PO-TYPED' }]);
    assert.deepEqual((await readBasket(t.pool, owner)).lines, []);
  });

  it('lands on the order already placed for that basket version when the form comes again with another purchase-order number', async () => {
    const { b, owner } = await signedInBuyer(t, 'po-again@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    const version = versionOf((await b.get('/basket')).body);
    // The first post placed its order under the basket's key and stopped before emptying the basket (the process ended).
    const c1 = publicCall(t, (await tradingKeys(t)).c1);
    const placed = await c1('POST', '/orders', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-M', quantity: 1 }], customerReference: 'PO-FIRST' }, { 'idempotency-key': basketOrderKey(owner, version) });
    assert.equal(placed.statusCode, 201, placed.body);
    const first = placed.json() as { orderNumber: string };
    const before = await count('SELECT count(*)::int AS n FROM orders');
    const again = await b.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: 'PO-CHANGED' });
    assert.equal(again.statusCode, 303, again.body);
    assert.equal(again.headers.location, `/orders/${first.orderNumber}`);
    assert.ok(textOf((await b.get(again.headers.location)).body).includes('Order placed'), 'that order is shown as placed');
    assert.equal(await count('SELECT count(*)::int AS n FROM orders'), before);
  });

  it('does not place the order when another ship-to was chosen than the page priced: saves it and shows the basket priced for it', async () => {
    const { b, owner } = await signedInBuyer(t, 'reprice@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    await b.post('/basket/checkout', { shipToCode: 'MAIN', customerReference: 'PO-OLD' });
    const version = versionOf((await b.get('/basket')).body);
    const before = await count('SELECT count(*)::int AS n FROM orders');
    const res = await b.post('/basket/order', { version, shipToCode: 'FN', pricedShipToCode: 'MAIN', customerReference: 'PO-NEW' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/basket?done=repriced');
    assert.equal(await count('SELECT count(*)::int AS n FROM orders'), before);
    const basket = await readBasket(t.pool, owner);
    assert.deepEqual([basket.shipToCode, basket.customerReference, basket.lines.length], ['FN', 'PO-NEW', 1]);

    const page = await b.get('/basket?done=repriced');
    assert.ok(textOf(page.body).includes('You chose another delivery address, so the order was not placed'));
    assert.match(page.body, /name="pricedShipToCode" value="FN"/);
    assert.match(textOf(page.body), /Exempt: /);
    // Placed from that page with the number cleared: to FN, with no purchase-order number.
    const placed = await b.post('/basket/order', { version: versionOf(page.body), shipToCode: 'FN', pricedShipToCode: 'FN', customerReference: '' });
    assert.equal(placed.statusCode, 303, placed.body);
    const orderNumber = /^\/orders\/(PW\d+)$/.exec(placed.headers.location as string)?.[1];
    const { rows } = await t.pool.query('SELECT ship_to_code, customer_reference FROM orders WHERE order_number = $1', [orderNumber]);
    assert.deepEqual(rows, [{ ship_to_code: 'FN', customer_reference: null }]);
  });

  it('does not place an order from a basket changed since the page was shown', async () => {
    const { b, owner } = await signedInBuyer(t, 'changed@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    const version = versionOf((await b.get('/basket')).body);
    await addToBasket(t.pool, owner, [{ sku: 'CAP', quantity: 1 }]);
    const res = await b.post('/basket/order', { version, shipToCode: 'MAIN' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/basket?done=changed');
    assert.equal(await count('SELECT count(*)::int AS n FROM orders WHERE account_no = $1 AND customer_reference IS NULL AND placed_at > now() - interval \'1 minute\' AND order_number IN (SELECT order_number FROM order_lines WHERE sku = \'CAP\')', ['C1']), 0);
    assert.equal((await readBasket(t.pool, owner)).lines.length, 2);
    assert.match((await b.get('/basket?done=changed')).body, /Your basket changed after you opened this page/);
  });

  it('refuses an account that is not Active and an unorderable basket, with the reasons on the page, and keeps the basket', async () => {
    const held = await signedInBuyer(t, 'held@example.com', 'C2');
    await addToBasket(t.pool, held.owner, [{ sku: 'TEE-M', quantity: 1 }]);
    let page = await held.b.get('/basket');
    assert.ok(textOf(page.body).includes('Your account is on hold: only an active account can place orders.'));
    assert.doesNotMatch(page.body, /action="\/basket\/order"/);
    const version = (await readBasket(t.pool, held.owner)).version;
    let res = await held.b.post('/basket/order', { version, shipToCode: 'MAIN' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Your order was not placed\. Your basket has been kept as it is\./);
    assert.match(res.body, /class="error-summary"[\s\S]*<a href="#reasons">Account C2 is OnHold; only an Active account can place orders\.<\/a>/);
    assert.equal((await readBasket(t.pool, held.owner)).lines.length, 1);

    const { b, owner } = await signedInBuyer(t, 'unpriced@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }, { sku: 'NOPRICE', quantity: 1 }]);
    page = await b.get('/basket');
    assert.doesNotMatch(page.body, /action="\/basket\/order"/, 'no place-order button for an unpriced line');
    const v = (await readBasket(t.pool, owner)).version;
    res = await b.post('/basket/order', { version: v, shipToCode: 'MAIN' });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /<a href="#line-1">Line 2 \(SKU NOPRICE\) has no price for account C1\.<\/a>/);
    assert.ok(textOf(res.body).includes('NOPRICE (No price) has no price for your account'));
    assert.deepEqual((await readBasket(t.pool, owner)).lines.map((l) => l.sku), ['TEE-M', 'NOPRICE']);
  });

  it('refuses every form of the basket without a valid CSRF token', async () => {
    const { b, owner } = await signedInBuyer(t, 'csrf@example.com', 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    const version = versionOf((await b.get('/basket')).body);
    const forms: Array<[string, Record<string, string>]> = [
      ['/basket/update', { sku: 'TEE-M', quantity: '0' }],
      ['/basket/checkout', { shipToCode: 'FN', customerReference: 'X' }],
      ['/basket/order', { version, shipToCode: 'MAIN' }],
    ];
    for (const [url, form] of forms) {
      for (const token of [null, 'forged']) {
        const res = await b.post(url, form, token);
        assert.equal(res.statusCode, 403, url);
        assert.match(res.body, /This form has expired/);
      }
    }
    const basket = await readBasket(t.pool, owner);
    assert.deepEqual(basket.lines, [{ sku: 'TEE-M', quantity: 1 }]);
    assert.equal(basket.shipToCode, null);
  });
});
