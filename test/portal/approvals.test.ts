import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addToBasket } from '../../src/modules/baskets/baskets.service.js';
import type { Order } from '../../src/modules/orders/index.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from '../modules/orders/orders-fixture.js';
import { PASSWORD, textOf, versionOf } from './checkout-helpers.js';
import { Browser, seedUser } from './portal-helpers.js';

/**
 * The portal's side of order limits and approval (issue 27 item 3): placing over the limit, the
 * order page of an order awaiting approval, the Approvals pages and their forms, withdrawal, and
 * who may do what; through `app.inject` on PostgreSQL.
 */

describe('portal: order limits and approval', () => {
  let t: TestApp;
  let ada: Browser;
  let bea: Browser;
  let bob: Browser;
  let beaId: string;

  async function signedIn(email: string, name: string, role: string): Promise<{ b: Browser; userId: string }> {
    const userId = await seedUser(t, { email, name, accounts: ['C1'], password: PASSWORD });
    await t.pool.query('UPDATE user_accounts SET role = $2 WHERE user_id = $1', [userId, role]);
    const b = new Browser(t);
    const res = await b.signIn(email, PASSWORD);
    assert.equal(res.statusCode, 303, res.body);
    return { b, userId };
  }

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    ada = (await signedIn('ada@example.com', 'Ada Admin', 'Administrator')).b;
    const b = await signedIn('bea@example.com', 'Bea Buyer', 'Buyer');
    bea = b.b;
    beaId = b.userId;
    bob = (await signedIn('bob@example.com', 'Bob Buyer', 'Buyer')).b;
    await t.pool.query('UPDATE user_accounts SET order_limit = 10 WHERE user_id = $1', [beaId]);
  });
  after(async () => t.close());

  /** Bea's basket placed from the page: the order's number and the page it redirects to. */
  async function placeAsBea(lines: Array<{ sku: string; quantity: number }>, reference: string) {
    await addToBasket(t.pool, { userId: beaId, accountNo: 'C1' }, lines);
    const version = versionOf((await bea.get('/basket')).body);
    const res = await bea.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: reference });
    assert.equal(res.statusCode, 303, res.body);
    const orderNumber = /^\/orders\/(PW\d+)$/.exec(res.headers.location as string)?.[1];
    assert.ok(orderNumber);
    return { orderNumber, version };
  }

  it('over the limit: the order page says once that it went for approval; it shows as Awaiting approval, placed by its buyer, with Withdraw', async () => {
    const { orderNumber, version } = await placeAsBea([{ sku: 'TEE-M', quantity: 2 }], 'PO-OVER');
    const page = await bea.get(`/orders/${orderNumber}`);
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    assert.ok(text.includes('Your order is over your limit of AUD 10.00, so it has been sent to your account\'s administrators for approval.'), text);
    assert.ok(!text.includes('Order placed'));
    assert.match(text, /Status Awaiting approval/);
    assert.match(text, /Placed by Bea Buyer/);
    assert.match(page.body, /<button type="submit" class="button button--secondary" aria-describedby="withdraw-hint">Withdraw<\/button>/);
    // Once: a reload shows the order alone.
    assert.ok(!textOf((await bea.get(`/orders/${orderNumber}`)).body).includes('over your limit of'));
    // The form sent again: the same order, still not placed, never "Order placed".
    const again = await bea.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: 'PO-OVER' });
    assert.equal(again.headers.location, `/orders/${orderNumber}`);
    const shown = textOf((await bea.get(`/orders/${orderNumber}`)).body);
    assert.ok(!shown.includes('Order placed'), shown);
    assert.ok(shown.includes('sent to your account\'s administrators for approval'), shown);
    assert.match(textOf((await bea.get('/orders')).body), new RegExp(`Order ${orderNumber} .* PO-OVER Awaiting approval`));
    // Another buyer sees it, without Withdraw.
    assert.ok(!(await bob.get(`/orders/${orderNumber}`)).body.includes('/withdraw'));
  });

  it('the Approvals link and pages are an Administrator\'s; a Buyer is refused them, and their forms', async () => {
    const { orderNumber } = await placeAsBea([{ sku: 'TEE-S', quantity: 1 }], 'PO-NAV');
    assert.match((await ada.get('/orders')).body, /<a href="\/approvals">Approvals<\/a>/);
    assert.ok(!(await bea.get('/orders')).body.includes('href="/approvals"'));
    for (const url of ['/approvals', `/approvals/${orderNumber}`]) {
      const res = await bea.get(url);
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /Your role does not allow this/);
    }
    await bea.get('/orders');
    for (const action of ['approve', 'decline']) {
      const res = await bea.post(`/approvals/${orderNumber}/${action}`, { reason: 'mine' });
      assert.equal(res.statusCode, 403, action);
    }
    const list = await ada.get('/approvals');
    assert.equal(list.statusCode, 200);
    assert.match(textOf(list.body), new RegExp(`Order ${orderNumber} .* Bea Buyer PO-NAV`));
    const one = await ada.get(`/approvals/${orderNumber}`);
    assert.equal(one.statusCode, 200);
    assert.match(one.body, />Approve<\/button>/);
    assert.match(one.body, /<label class="field__label" for="reason">Why are you declining it\?<\/label>/);
    assert.equal((await ada.get('/approvals/PW99999999')).statusCode, 404);
    for (const action of ['approve', 'decline']) {
      const forged = await ada.post(`/approvals/${orderNumber}/${action}`, { reason: 'forged' }, 'forged-token');
      assert.equal(forged.statusCode, 403);
      assert.match(forged.body, /This form has expired/);
    }
    assert.equal((await t.pool.query('SELECT approval_state FROM orders WHERE order_number = $1', [orderNumber])).rows[0].approval_state, 'AwaitingApproval');
  });

  it('declining needs a reason; declined, the buyer sees it with the reason', async () => {
    const { orderNumber } = await placeAsBea([{ sku: 'TEE-M', quantity: 3 }], 'PO-DECLINE');
    await ada.get(`/approvals/${orderNumber}`);
    const empty = await ada.post(`/approvals/${orderNumber}/decline`, { reason: '  ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /<a href="#reason">Enter why you are declining the order<\/a>/);
    assert.match(empty.body, /aria-invalid="true"/);
    const tooLong = await ada.post(`/approvals/${orderNumber}/decline`, { reason: 'x'.repeat(501) });
    assert.equal(tooLong.statusCode, 400);
    assert.match(tooLong.body, /The reason must be 500 characters or fewer/);
    const done = await ada.post(`/approvals/${orderNumber}/decline`, { reason: 'Over budget this month' });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/approvals');
    assert.match(textOf((await ada.get('/approvals')).body), new RegExp(`Order ${orderNumber} declined`));
    const page = textOf((await bea.get(`/orders/${orderNumber}`)).body);
    assert.match(page, /Status Declined/);
    assert.match(page, /Why it was declined Over budget this month/);
    assert.ok(!page.includes('Withdraw'));
    const again = await ada.post(`/approvals/${orderNumber}/approve`, {});
    assert.equal(again.statusCode, 409);
    assert.match(textOf(again.body), /This order has been declined already/);
  });

  it('withdrawn by its buyer; refused for another buyer', async () => {
    const { orderNumber } = await placeAsBea([{ sku: 'TEE-M', quantity: 4 }], 'PO-WITHDRAW');
    await bob.get(`/orders/${orderNumber}`);
    const refused = await bob.post(`/orders/${orderNumber}/withdraw`, {});
    assert.equal(refused.statusCode, 303);
    assert.match(textOf((await bob.get(`/orders/${orderNumber}`)).body), /Only the buyer who submitted this order can withdraw it/);
    assert.equal((await t.pool.query('SELECT approval_state FROM orders WHERE order_number = $1', [orderNumber])).rows[0].approval_state, 'AwaitingApproval');
    await bea.get(`/orders/${orderNumber}`);
    const done = await bea.post(`/orders/${orderNumber}/withdraw`, {});
    assert.equal(done.statusCode, 303);
    const page = textOf((await bea.get(`/orders/${orderNumber}`)).body);
    assert.match(page, new RegExp(`Order ${orderNumber} has been withdrawn`));
    assert.match(page, /Status Withdrawn/);
    assert.ok(!(await ada.get('/approvals')).body.includes(orderNumber));
  });

  it('approving after a price change shows old and new and asks to confirm; confirmed, the order is placed at the new figures, approved by its approver', async () => {
    const { orderNumber } = await placeAsBea([{ sku: 'CAP', quantity: 4 }], 'PO-REPRICE');
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'CAP', name: 'Cap', unitPrice: '12.5', weight: '0.1', taxGroupCode: 'GOODS', gstProductPostingGroup: 'FREE' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    await ada.get(`/approvals/${orderNumber}`);
    const changed = await ada.post(`/approvals/${orderNumber}/approve`, {});
    assert.equal(changed.statusCode, 409);
    const text = textOf(changed.body);
    assert.match(text, /The prices have changed since it was submitted/);
    assert.match(text, /CAP × 4 AUD 40\.00 \(AUD 9\.9999 each\) AUD 50\.00 \(AUD 12\.50 each\) Changed/);
    assert.match(changed.body, />Confirm and approve at the new figures<\/button>/);
    const confirmation = /name="confirmation" value="([^"]+)"/.exec(changed.body)?.[1];
    assert.ok(confirmation);
    assert.equal((await t.pool.query('SELECT approval_state FROM orders WHERE order_number = $1', [orderNumber])).rows[0].approval_state, 'AwaitingApproval');

    const done = await ada.post(`/approvals/${orderNumber}/approve`, { confirmation });
    assert.equal(done.statusCode, 303);
    const page = textOf((await bea.get(`/orders/${orderNumber}`)).body);
    assert.match(page, /Approved by Ada Admin/);
    assert.match(page, /Placed by Bea Buyer/);
    assert.match(page, /AUD 50\.00/);
    assert.ok(!page.includes('Awaiting approval'));
    const jobs = await t.pool.query("SELECT key FROM graphile_worker.jobs WHERE task_identifier = 'orders.erp-handoff' AND key = $1", [`orders.erp-handoff:${orderNumber}`]);
    assert.equal(jobs.rowCount, 1, 'handed to the ERP');

    const api = await publicCall(t, (await tradingKeys(t)).c1)('GET', `/orders/${orderNumber}`);
    const order = api.json() as Order;
    assert.deepEqual(order.placedBy, { name: 'Bea Buyer', email: 'bea@example.com' });
    assert.deepEqual(order.approvedBy, { name: 'Ada Admin', email: 'ada@example.com' });
    assert.equal(order.lines[0]!.unitPrice, '12.5000');
  });

  it('approving with no change places the order at once; an order awaiting approval is a 404 through the API until then', async () => {
    const { orderNumber } = await placeAsBea([{ sku: 'TEE-S', quantity: 2 }], 'PO-PLAIN');
    const c1 = publicCall(t, (await tradingKeys(t)).c1);
    assert.equal((await c1('GET', `/orders/${orderNumber}`)).statusCode, 404);
    await ada.get(`/approvals/${orderNumber}`);
    const done = await ada.post(`/approvals/${orderNumber}/approve`, {});
    assert.equal(done.statusCode, 303);
    assert.match(textOf((await ada.get('/approvals')).body), new RegExp(`Order ${orderNumber} approved\\. It has been placed`));
    assert.equal((await c1('GET', `/orders/${orderNumber}`)).statusCode, 200);
  });
});
