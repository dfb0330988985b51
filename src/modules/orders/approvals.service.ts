import { withTransaction } from '../../platform/db/pool.js';
import { recordActivity } from '../activity/index.js';
import { may, type Role } from '../users/index.js';
import { enqueueDecisionMail } from './approval-mail.job.js';
import { DECLINE_REASON_MAX, figuresConfirmation, sameFigures, type ApprovalFigures } from './approvals.engine.js';
import { lockOrder, storeApproval, storeDecision } from './approvals.repository.js';
import { enqueueErpHandoff } from './erp-handoff.job.js';
import { listAwaitingOrders, type StoredOrder } from './orders.repository.js';
import { ordersRefusals } from './orders.refusals.js';
import type { Order, Quote } from './orders.schemas.js';
import { orderView, pricedLines, type OrderDeps } from './orders.service.js';
import { priceBasket } from './quote.service.js';

/**
 * Approving, declining and withdrawing an order a Buyer submitted over their order limit (issue 27
 * item 3). Each decision locks the order, checks it still awaits approval, and writes the decision,
 * its mail and its activity entry in one transaction: two Administrators deciding at once decide
 * once, and the loser is told the order no longer awaits approval.
 */

/** Who acts on an order awaiting approval: a user of the account, in their role there. */
export interface Actor { userId: string; accountNo: string; role: Role }

function mayApprove(actor: Actor): void {
  if (!may(actor.role, 'approve')) {
    throw ordersRefusals.refuse('approval-not-allowed', `A ${actor.role} may not approve or decline orders.`, { role: actor.role });
  }
}

const notFound = (orderNumber: string) => ordersRefusals.refuse('order-not-found', `Order ${orderNumber} does not exist.`, { orderNumber });

function awaitingApproval(order: StoredOrder): void {
  if (order.approval_state !== 'AwaitingApproval') {
    const state = order.approval_state;
    throw ordersRefusals.refuse('approval-not-awaiting', `Order ${order.order_number} is not awaiting approval${state === null ? '' : ` (it is ${state})`}; nothing was changed.`, {
      orderNumber: order.order_number, state,
    });
  }
}

/** The figures the order was submitted with, as stored. */
export function figuresOfOrder(order: StoredOrder): ApprovalFigures {
  return {
    lines: order.lines.filter((l) => l.line_type === 'Item').map((l) => ({
      lineNumber: l.line_number, sku: l.sku ?? '', quantity: l.quantity, unitPrice: l.unit_price, lineAmount: l.line_amount, taxAmount: l.tax_amount,
    })),
    net: order.net_amount, tax: order.tax_amount, freight: order.freight_amount, total: order.total_amount,
  };
}

function figuresOfQuote(quote: Quote): ApprovalFigures {
  return {
    lines: quote.lines.map((l) => ({
      lineNumber: l.lineNumber, sku: l.sku, quantity: l.quantity, unitPrice: l.unitPrice, lineAmount: l.lineAmount, taxAmount: l.tax.amount,
    })),
    net: quote.totals.net, tax: quote.totals.tax, freight: quote.totals.freight, total: quote.totals.total,
  };
}

/** A page of the account's orders awaiting approval, the longest waiting first (the Approvals page). */
export async function listAwaitingApproval(
  deps: OrderDeps, actor: Actor, page: number, pageSize: number,
): Promise<{ data: Order[]; page: number; pageSize: number; total: number }> {
  mayApprove(actor);
  const { orders, total } = await listAwaitingOrders(deps.pool, actor.accountNo, page, pageSize);
  return { data: orders.map(orderView), page, pageSize, total };
}

/**
 * Approves the order: priced again now, exactly as placing it would price it. When any figure
 * differs from what it was submitted with, it is approved only with the `confirmation` of exactly
 * the new figures (refused otherwise, with both sets); then the new figures are stored, the order
 * is placed at this instant, handed to the ERP through the outbox and its buyer mailed.
 */
export async function approveOrder(
  deps: OrderDeps, approver: Actor, orderNumber: string, confirmation?: string,
): Promise<{ orderNumber: string; repriced: boolean }> {
  mayApprove(approver);
  const at = (deps.now ?? (() => new Date()))();
  return withTransaction(deps.pool, async (tx) => {
    const order = await lockOrder(tx, approver.accountNo, orderNumber);
    if (order === undefined) throw notFound(orderNumber);
    awaitingApproval(order);
    const items = order.lines.filter((l) => l.line_type === 'Item');
    const basket = { shipToCode: order.ship_to_code, lines: items.map((l) => ({ sku: l.sku ?? '', quantity: l.quantity })) };
    const priced = await priceBasket(deps, tx, approver.accountNo, basket, at, { forOrder: true });
    if (priced.blockers.length > 0) {
      throw ordersRefusals.refuse('basket-not-orderable', `The order cannot be placed now: ${priced.blockers.map((b) => b.message).join(' ')}`, { blockers: priced.blockers });
    }
    const { quote, shipping } = priced;
    if (shipping.status !== 'Quoted') throw new Error('an orderable basket has a quoted shipping');
    const before = figuresOfOrder(order);
    const now = figuresOfQuote(quote);
    const repriced = !sameFigures(before, now);
    const expected = figuresConfirmation(now);
    if (repriced && confirmation !== expected) {
      throw ordersRefusals.refuse('approval-figures-changed', `Order ${orderNumber} prices differently now; confirm the new figures to approve it.`, {
        orderNumber, before, now, confirmation: expected,
      });
    }
    const ids = new Map(order.lines.map((l) => [l.line_number, l.order_line_id]));
    const lines = pricedLines(quote, shipping).map((l) => ({
      order_line_id: ids.get(l.line_number) as string,
      description: l.description, unit_price: l.unit_price, line_discount_percent: l.line_discount_percent, line_amount: l.line_amount,
      tax_amount: l.tax_amount, tax_rate_percent: l.tax_rate_percent, tax_reason: l.tax_reason, pricing: l.pricing, tax: l.tax,
    }));
    const stored = await storeApproval(tx, {
      orderNumber, approverId: approver.userId, at: at.toISOString(),
      amounts: { net: quote.totals.net, tax: quote.totals.tax, freight: quote.totals.freight, total: quote.totals.total },
      shipping: shipping as unknown as Record<string, unknown>,
      lines,
    });
    if (!stored) throw new Error(`order ${orderNumber} was locked awaiting approval and could not be approved`);
    await enqueueErpHandoff(tx, orderNumber);
    await enqueueDecisionMail(tx, orderNumber, 'Approved');
    await recordActivity(tx, {
      accountNo: approver.accountNo, kind: 'approval', actorUserId: approver.userId, subjectUserId: order.placed_by_user_id, orderNumber,
      details: { total: now.total, submittedTotal: before.total, repriced, currency: order.currency },
    });
    return { orderNumber, repriced };
  });
}

/** The reason as it will be stored and mailed, or the refusal saying what is wrong with it. */
function declineReason(reason: unknown): string {
  const text = typeof reason === 'string' ? reason.trim() : '';
  if (text === '') {
    throw ordersRefusals.refuse('decline-reason-invalid', 'Say why the order is declined.', { maximum: DECLINE_REASON_MAX, message: 'Enter why you are declining the order' });
  }
  if ([...text].length > DECLINE_REASON_MAX) {
    throw ordersRefusals.refuse('decline-reason-invalid', `A reason has at most ${DECLINE_REASON_MAX} characters.`, {
      maximum: DECLINE_REASON_MAX, message: `The reason must be ${DECLINE_REASON_MAX} characters or fewer`,
    });
  }
  return text;
}

/** Declines the order with a reason: never placed, its buyer mailed the reason. */
export async function declineOrder(deps: OrderDeps, approver: Actor, orderNumber: string, reason: unknown): Promise<void> {
  mayApprove(approver);
  const text = declineReason(reason);
  await withTransaction(deps.pool, async (tx) => {
    const order = await lockOrder(tx, approver.accountNo, orderNumber);
    if (order === undefined) throw notFound(orderNumber);
    awaitingApproval(order);
    await storeDecision(tx, orderNumber, 'Declined', approver.userId, text);
    await enqueueDecisionMail(tx, orderNumber, 'Declined');
    await recordActivity(tx, {
      accountNo: approver.accountNo, kind: 'decline', actorUserId: approver.userId, subjectUserId: order.placed_by_user_id, orderNumber,
      details: { reason: text, total: order.total_amount, currency: order.currency },
    });
  });
}

/** Withdraws the order: only by the buyer who submitted it, only while it awaits approval. */
export async function withdrawOrder(deps: OrderDeps, buyer: Actor, orderNumber: string): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const order = await lockOrder(tx, buyer.accountNo, orderNumber);
    if (order === undefined) throw notFound(orderNumber);
    if (order.placed_by_user_id !== buyer.userId) {
      throw ordersRefusals.refuse('withdrawal-not-allowed', `Only the buyer who submitted order ${orderNumber} may withdraw it.`, { orderNumber });
    }
    awaitingApproval(order);
    await storeDecision(tx, orderNumber, 'Withdrawn', buyer.userId, null);
    await recordActivity(tx, {
      accountNo: buyer.accountNo, kind: 'withdrawal', actorUserId: buyer.userId, subjectUserId: buyer.userId, orderNumber,
      details: { total: order.total_amount, currency: order.currency },
    });
  });
}
