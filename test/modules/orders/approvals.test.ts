import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listActivity } from '../../../src/modules/activity/index.js';
import { approvalDecision, approvalDecisionHandler, approvalRequest, approvalRequestHandler } from '../../../src/modules/orders/approval-mail.job.js';
import { approveOrder, declineOrder, withdrawOrder, type Actor } from '../../../src/modules/orders/approvals.service.js';
import { needsApproval } from '../../../src/modules/orders/approvals.engine.js';
import { erpHandoff, erpHandoffHandler } from '../../../src/modules/orders/erp-handoff.job.js';
import type { ErpClient, ErpOrder } from '../../../src/modules/orders/erp.client.js';
import { getOrder, listAccountOrders, ordersRefusals, placeOrder, type Order, type OrderDeps } from '../../../src/modules/orders/index.js';
import { QuotePriceCache } from '../../../src/modules/orders/quote-price-cache.js';
import { TradingReferenceCache } from '../../../src/modules/orders/reference-cache.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import type { MailMessage, Mailer } from '../../../src/platform/mail.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { capturingLogger } from '../../helpers/processes.js';
import { seedUser } from '../../portal/portal-helpers.js';
import { publicCall, pushTradingWorld, tradingKeys } from './orders-fixture.js';

/**
 * Order limits and approval (issue 27 item 3) through the orders module's services, on PostgreSQL:
 * the limit at its boundary, submission, approval (re-priced, confirmed when changed), decline,
 * withdrawal, the hand-off and every mail once, each job run by hand (twice, as a retry would).
 */

describe('order limits and approval', () => {
  let t: TestApp;
  let deps: OrderDeps;
  let admin: Actor;
  let buyer: Actor;
  let otherBuyer: Actor;
  const sent: MailMessage[] = [];
  const taken: ErpOrder[] = [];
  // As SMTP: it cannot tell what it sent before, only sendOnce's record can.
  const mailer: Mailer = { destination: 'smtp://test', alreadySent: async () => false, send: async (m) => { sent.push(m); }, close: () => undefined };
  const erp: ErpClient = { name: 'test', submitOrder: async (o) => { taken.push(o); return { kind: 'Accepted', documentNo: `SO-${o.orderNumber}` }; } };
  const context = { jobId: '1', attempt: 1, logger: capturingLogger().logger };

  /** Prices TEE-M × 2 would be ordered at now (what placing it totals). */
  let teeTotal: string;
  const TEES = { shipToCode: 'MAIN', lines: [{ sku: 'TEE-M', quantity: 2 }] };

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    deps = {
      pool: t.pool, currency: t.config.siteCurrency, timeZone: t.config.siteTimeZone,
      rules: new PriceRuleCache(t.pool), prices: new QuotePriceCache(), reference: new TradingReferenceCache(t.pool),
    };
    const member = async (email: string, name: string, role: string, limit: string | null): Promise<Actor> => {
      const userId = await seedUser(t, { email, name, accounts: ['C1'] });
      await t.pool.query('UPDATE user_accounts SET role = $2, order_limit = $3 WHERE user_id = $1', [userId, role, limit]);
      return { userId, accountNo: 'C1', role: role as Actor['role'] };
    };
    admin = await member('ada@example.com', 'Ada Admin', 'Administrator', '1');
    await member('abe@example.com', 'Abe Admin', 'Administrator', null);
    const gone = await member('old@example.com', 'Old Admin', 'Administrator', null);
    await t.pool.query('UPDATE user_accounts SET deactivated_at = now() WHERE user_id = $1', [gone.userId]);
    await member('vic@example.com', 'Vic Viewer', 'Viewer', null);
    buyer = await member('bea@example.com', 'Bea Buyer', 'Buyer', null);
    otherBuyer = await member('bob@example.com', 'Bob Buyer', 'Buyer', null);
    const quote = await publicCall(t, (await tradingKeys(t)).c1)('POST', '/quotes', TEES);
    assert.equal(quote.statusCode, 200, quote.body);
    teeTotal = quote.json().totals.total as string;
  });
  after(async () => t.close());

  const setLimit = (who: Actor, limit: string | null) => t.pool.query('UPDATE user_accounts SET order_limit = $2 WHERE user_id = $1', [who.userId, limit]);
  const row = async (orderNumber: string) => (await t.pool.query<{ approval_state: string | null; erp_state: string; decided_by: string | null; total: string; placed_at: Date; submitted_at: Date | null }>(
    `SELECT approval_state, erp_state, decided_by_user_id::text AS decided_by, total_amount::text AS total, placed_at, submitted_at
       FROM orders WHERE order_number = $1`, [orderNumber])).rows[0]!;
  const jobs = async (task: string, orderNumber: string) =>
    (await t.pool.query<{ key: string }>('SELECT key FROM graphile_worker.jobs WHERE task_identifier = $1 AND key LIKE $2', [task, `%:${orderNumber}%`])).rows.map((r) => r.key);
  const refusedWith = (code: string) => (error: unknown) => ordersRefusals.is(error) && error.code === code;
  const mailsTo = (orderNumber: string) => sent.filter((m) => m.id.includes(orderNumber));
  let keys = 0;
  const place = (who: Actor, body: unknown = TEES) => placeOrder(deps, 'C1', body, `approval-test-${keys++}`, { userId: who.userId });
  const sendRequests = (orderNumber: string) => approvalRequestHandler({ pool: t.pool, mailer, publicUrl: t.config.publicUrl }).handle({ v: approvalRequest.version, orderNumber }, context);
  const sendDecision = (orderNumber: string, decision: 'Approved' | 'Declined') =>
    approvalDecisionHandler({ pool: t.pool, mailer, publicUrl: t.config.publicUrl }).handle({ v: approvalDecision.version, orderNumber, decision }, context);
  const handOff = (orderNumber: string) =>
    erpHandoffHandler({ pool: t.pool, client: erp, retryBaseMs: 1000, retryMaxMs: 60_000 }).handle({ v: erpHandoff.version, orderNumber }, context);

  /** An order of Bea's over her limit, awaiting approval. */
  async function submitted(body: unknown = TEES): Promise<string> {
    await setLimit(buyer, '10');
    const placed = await place(buyer, body);
    assert.equal(placed.overLimit, '10.0000');
    return placed.orderNumber;
  }

  it('needsApproval: over the limit only, never for those who may approve, never without a limit', () => {
    assert.equal(needsApproval({ role: 'Buyer', orderLimit: '100.00' }, '100.0000'), false, 'equal to the limit is within it');
    assert.equal(needsApproval({ role: 'Buyer', orderLimit: '100' }, '100.0001'), true);
    assert.equal(needsApproval({ role: 'Buyer', orderLimit: '100' }, '99.99'), false);
    assert.equal(needsApproval({ role: 'Buyer', orderLimit: null }, '1000000'), false);
    assert.equal(needsApproval({ role: 'Administrator', orderLimit: '1' }, '1000000'), false);
    assert.equal(needsApproval({ role: 'Buyer', orderLimit: '0' }, '0.01'), true);
  });

  it('an order under the limit, or exactly at it, is placed as before: queued for the ERP and confirmed', async () => {
    for (const limit of [null, teeTotal, '100000']) {
      await setLimit(buyer, limit);
      const placed = await place(buyer);
      assert.equal(placed.overLimit, undefined, `limit ${limit}`);
      const r = await row(placed.orderNumber);
      assert.equal(r.approval_state, null);
      assert.equal(r.erp_state, 'Queued');
      assert.deepEqual(await jobs('orders.erp-handoff', placed.orderNumber), [`orders.erp-handoff:${placed.orderNumber}`]);
      assert.deepEqual(await jobs('orders.confirmation-mail', placed.orderNumber), [`orders.confirmation-mail:${placed.orderNumber}`]);
      assert.deepEqual(await jobs('orders.approval-request-mail', placed.orderNumber), []);
    }
  });

  it('an Administrator has no limit, whatever is stored; an order through the public API never has one', async () => {
    const placed = await place(admin);
    assert.equal(placed.overLimit, undefined);
    assert.equal((await row(placed.orderNumber)).erp_state, 'Queued');
    await setLimit(buyer, '0');
    const res = await publicCall(t, (await tradingKeys(t)).c1)('POST', '/orders', TEES);
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json() as Order;
    assert.equal(order.approval, null);
    assert.equal(order.placedBy, null);
    assert.equal(order.erp.state, 'Queued');
  });

  it('an order over the limit is submitted: held, not handed to the ERP, not placed; each active Administrator mailed once', async () => {
    const orderNumber = await submitted();
    const r = await row(orderNumber);
    assert.equal(r.approval_state, 'AwaitingApproval');
    assert.equal(r.erp_state, 'Held');
    assert.ok(r.submitted_at);
    assert.deepEqual(await jobs('orders.erp-handoff', orderNumber), [], 'no hand-off');
    assert.deepEqual(await jobs('orders.confirmation-mail', orderNumber), [], 'no confirmation');
    assert.deepEqual(await jobs('orders.approval-request-mail', orderNumber), [`orders.approval-request-mail:${orderNumber}`]);

    // Not placed: the API neither returns nor lists nor counts it; the portal's scope sees it.
    await assert.rejects(getOrder(deps, 'C1', orderNumber), refusedWith('order-not-found'));
    const placedOnly = await listAccountOrders(deps, 'C1', 1, 100);
    assert.ok(!placedOnly.data.some((o) => o.orderNumber === orderNumber));
    const all = await listAccountOrders(deps, 'C1', 1, 100, { unplaced: true });
    assert.equal(all.total, placedOnly.total + 1);
    const seen = await getOrder(deps, 'C1', orderNumber, { unplaced: true });
    assert.equal(seen.approval?.state, 'AwaitingApproval');
    assert.deepEqual(seen.placedBy, { name: 'Bea Buyer', email: 'bea@example.com' });
    assert.equal(seen.approvedBy, null);

    // A stray hand-off job sends nothing: only a Queued order is sent.
    await handOff(orderNumber);
    assert.ok(!taken.some((o) => o.orderNumber === orderNumber));

    // The job run twice (a retry): one mail to each active Administrator, none to anyone else.
    await sendRequests(orderNumber);
    await sendRequests(orderNumber);
    const mails = mailsTo(orderNumber);
    assert.deepEqual(mails.map((m) => m.to).sort(), ['abe@example.com', 'ada@example.com']);
    const mail = mails.find((m) => m.to === 'ada@example.com')!;
    assert.equal(mail.subject, `Order ${orderNumber} for One awaits your approval`);
    assert.ok(mail.text.includes('Bea Buyer (bea@example.com) submitted order'), mail.text);
    assert.ok(mail.text.includes(`http://localhost:3000/approvals/${orderNumber}\n`), mail.text);
    assert.ok(mail.html?.includes('<strong>TEE-M</strong> Tee M'));

    const activity = await listActivity(t.pool, 'C1', 1, 100);
    assert.ok(activity.entries.some((e) => e.kind === 'submission' && e.orderNumber === orderNumber && e.actorName === 'Bea Buyer'));
  });

  it('approved with no price change: placed, handed to the ERP once, its buyer mailed once; approvedBy in the API', async () => {
    const orderNumber = await submitted();
    const before = await row(orderNumber);
    const done = await approveOrder(deps, admin, orderNumber);
    assert.deepEqual(done, { orderNumber, repriced: false });
    const r = await row(orderNumber);
    assert.equal(r.approval_state, 'Approved');
    assert.equal(r.erp_state, 'Queued');
    assert.equal(r.decided_by, admin.userId);
    assert.equal(r.total, before.total);
    assert.ok(r.placed_at.getTime() >= before.placed_at.getTime(), 'placed when approved');
    assert.deepEqual(await jobs('orders.erp-handoff', orderNumber), [`orders.erp-handoff:${orderNumber}`]);
    assert.deepEqual(await jobs('orders.approval-decision-mail', orderNumber), [`orders.approval-decision-mail:${orderNumber}:Approved`]);

    await handOff(orderNumber);
    await handOff(orderNumber);
    assert.equal(taken.filter((o) => o.orderNumber === orderNumber).length, 1, 'handed to the ERP once');
    assert.equal(taken.find((o) => o.orderNumber === orderNumber)?.totals.total, before.total);

    await sendDecision(orderNumber, 'Approved');
    await sendDecision(orderNumber, 'Approved');
    const mails = mailsTo(orderNumber).filter((m) => m.id.startsWith('order-approved'));
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.to, 'bea@example.com');
    assert.equal(mails[0]!.subject, `Order ${orderNumber} approved`);
    assert.ok(mails[0]!.text.includes(`Ada Admin approved your order ${orderNumber}`), mails[0]!.text);

    const res = await publicCall(t, (await tradingKeys(t)).c1)('GET', `/orders/${orderNumber}`);
    assert.equal(res.statusCode, 200, res.body);
    const order = res.json() as Order;
    assert.deepEqual(order.placedBy, { name: 'Bea Buyer', email: 'bea@example.com' });
    assert.deepEqual(order.approvedBy, { name: 'Ada Admin', email: 'ada@example.com' });
    assert.equal(order.approval?.state, 'Approved');
    assert.equal(order.erp.state, 'Accepted');
    const list = await publicCall(t, (await tradingKeys(t)).c1)('GET', '/orders?pageSize=100');
    assert.ok((list.json().data as Order[]).some((o) => o.orderNumber === orderNumber));

    // Decided once: approving, declining or withdrawing again changes nothing.
    await assert.rejects(approveOrder(deps, admin, orderNumber), refusedWith('approval-not-awaiting'));
    await assert.rejects(declineOrder(deps, admin, orderNumber, 'late'), refusedWith('approval-not-awaiting'));
    await assert.rejects(withdrawOrder(deps, buyer, orderNumber), refusedWith('approval-not-awaiting'));
    assert.ok((await listActivity(t.pool, 'C1', 1, 100)).entries.some((e) => e.kind === 'approval' && e.orderNumber === orderNumber && e.actorName === 'Ada Admin'));
  });

  it('only a role that may approve approves or declines; an order of another account is not found', async () => {
    const orderNumber = await submitted();
    await assert.rejects(approveOrder(deps, otherBuyer, orderNumber), refusedWith('approval-not-allowed'));
    await assert.rejects(declineOrder(deps, { ...admin, role: 'Viewer' }, orderNumber, 'no'), refusedWith('approval-not-allowed'));
    await assert.rejects(approveOrder(deps, { ...admin, accountNo: 'G1' }, orderNumber), refusedWith('order-not-found'));
    assert.equal((await row(orderNumber)).approval_state, 'AwaitingApproval');
  });

  it('declined with a reason (required, at most 500 characters): never handed to the ERP, its buyer mailed the reason once', async () => {
    const orderNumber = await submitted();
    await assert.rejects(declineOrder(deps, admin, orderNumber, '   '), refusedWith('decline-reason-invalid'));
    await assert.rejects(declineOrder(deps, admin, orderNumber, 'x'.repeat(501)), refusedWith('decline-reason-invalid'));
    await declineOrder(deps, admin, orderNumber, ' Too many tees this month <b> ');
    const r = await row(orderNumber);
    assert.equal(r.approval_state, 'Declined');
    assert.equal(r.erp_state, 'Held');
    assert.deepEqual(await jobs('orders.erp-handoff', orderNumber), []);
    const order = await getOrder(deps, 'C1', orderNumber, { unplaced: true });
    assert.equal(order.approval?.reason, 'Too many tees this month <b>');
    assert.equal(order.approvedBy, null);

    await sendDecision(orderNumber, 'Declined');
    await sendDecision(orderNumber, 'Declined');
    const mails = mailsTo(orderNumber).filter((m) => m.id.startsWith('order-declined'));
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.to, 'bea@example.com');
    assert.ok(mails[0]!.text.includes('Reason: Too many tees this month <b>\n'), mails[0]!.text);
    assert.ok(mails[0]!.html?.includes('Too many tees this month &lt;b&gt;'));
    await assert.rejects(withdrawOrder(deps, buyer, orderNumber), refusedWith('approval-not-awaiting'));
    assert.ok((await listActivity(t.pool, 'C1', 1, 100)).entries.some((e) => e.kind === 'decline' && e.details.reason === 'Too many tees this month <b>'));
  });

  it('withdrawn by its buyer only, only while it awaits approval', async () => {
    const orderNumber = await submitted();
    await assert.rejects(withdrawOrder(deps, otherBuyer, orderNumber), refusedWith('withdrawal-not-allowed'));
    await assert.rejects(withdrawOrder(deps, admin, orderNumber), refusedWith('withdrawal-not-allowed'));
    await withdrawOrder(deps, buyer, orderNumber);
    const r = await row(orderNumber);
    assert.equal(r.approval_state, 'Withdrawn');
    assert.equal(r.erp_state, 'Held');
    await assert.rejects(withdrawOrder(deps, buyer, orderNumber), refusedWith('approval-not-awaiting'));
    await assert.rejects(approveOrder(deps, admin, orderNumber), refusedWith('approval-not-awaiting'));
    // The request job, run late, mails nobody about an order no longer awaiting approval.
    const before = sent.length;
    await sendRequests(orderNumber);
    assert.equal(sent.length, before);
    assert.ok((await listActivity(t.pool, 'C1', 1, 100)).entries.some((e) => e.kind === 'withdrawal' && e.orderNumber === orderNumber));
  });

  it('approved after a price change: refused with the old and new figures, then approved at the new ones when confirmed', async () => {
    const orderNumber = await submitted({ shipToCode: 'MAIN', lines: [{ sku: 'CAP', quantity: 4 }] });
    const submittedTotal = (await row(orderNumber)).total;
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'CAP', name: 'Cap', unitPrice: '12.5', weight: '0.1', taxGroupCode: 'GOODS', gstProductPostingGroup: 'FREE' },
    ]);
    assert.equal(res.statusCode, 200, res.body);

    let confirmation = '';
    await assert.rejects(approveOrder(deps, admin, orderNumber), (error: unknown) => {
      if (!ordersRefusals.is(error) || error.code !== 'approval-figures-changed') return false;
      assert.equal(error.details.before.lines[0]!.unitPrice, '9.9999');
      assert.equal(error.details.now.lines[0]!.unitPrice, '12.5000');
      assert.equal(error.details.before.total, submittedTotal);
      assert.notEqual(error.details.now.total, submittedTotal);
      confirmation = error.details.confirmation;
      return true;
    });
    assert.equal((await row(orderNumber)).approval_state, 'AwaitingApproval', 'nothing changed');
    assert.deepEqual(await jobs('orders.erp-handoff', orderNumber), []);
    await assert.rejects(approveOrder(deps, admin, orderNumber, 'not-the-confirmation'), refusedWith('approval-figures-changed'));

    const done = await approveOrder(deps, admin, orderNumber, confirmation);
    assert.equal(done.repriced, true);
    const order = await getOrder(deps, 'C1', orderNumber);
    assert.equal(order.lines[0]!.unitPrice, '12.5000');
    assert.equal(order.lines[0]!.lineAmount, '50.0000');
    assert.notEqual(order.totals.total, submittedTotal);
    assert.equal((await row(orderNumber)).total, order.totals.total);
    await handOff(orderNumber);
    const handed = taken.find((o) => o.orderNumber === orderNumber);
    assert.equal(handed?.totals.total, order.totals.total, 'the ERP gets the new figures');
    assert.equal(handed?.lines[0]?.unitPrice, '12.5000');
  });
});
