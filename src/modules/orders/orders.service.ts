import { createHash, randomUUID } from 'node:crypto';
import { withTransaction, type Queryable } from '../../platform/db/pool.js';
import { currencyMinorUnit } from '../../platform/money.js';
import { compileItemValidator } from '../../platform/schema/item-validator.js';
import { recordActivity } from '../activity/index.js';
import { accountExists, accountNotFound } from '../customers/index.js';
import { totalsOf } from './amounts.engine.js';
import { enqueueApprovalRequest } from './approval-mail.job.js';
import { needsApproval } from './approvals.engine.js';
import { findBuyingTerms } from './approvals.repository.js';
import type { BasketShipTo } from './basket.repository.js';
import { FREIGHT_CHARGE } from './charge-words.js';
import { enqueueErpHandoff } from './erp-handoff.job.js';
import { enqueueOrderConfirmation } from './order-mail.job.js';
import { lineStatus, orderStatus } from './orders.engine.js';
import {
  claimIdempotencyKey, deleteExpiredIdempotentAnswers as deleteExpiredAnswers, findOrder, insertOrder, listOrders, nextOrderNumber,
  storeIdempotentAnswer, type NewOrderLine, type OrderScope, type StoredOrder,
} from './orders.repository.js';
import { OrderBodySchema, type Order, type OrderBody, type Quote } from './orders.schemas.js';
import type { Shipping } from '../freight/index.js';
import { ordersRefusals } from './orders.refusals.js';
import { parseBasket, priceBasket, type QuoteDeps } from './quote.service.js';

/**
 * Orders (issue 13): placed exactly as their quote prices them at that moment, stored with their
 * lines and handed to the ERP through the outbox in the same transaction, read back with statuses
 * derived from the quantities on every read.
 */

export type OrderDeps = QuoteDeps;

const validateOrderBody = compileItemValidator(OrderBodySchema);

/** Idempotency-Key: 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

export interface PlacedOrder {
  /** The order as JSON text: the first answer, replayed as it is for the same key and body. */
  body: string;
  orderNumber: string;
  replayed: boolean;
  /** The order was over its buyer's limit (this one, in the site currency) and awaits approval: not placed yet. Absent on a replay. */
  overLimit?: string;
}

/** The ship-to as it was when the order was placed, under the interface's names (the ERP hand-off reads them). */
function shipToSnapshot(s: BasketShipTo): Record<string, unknown> {
  return {
    shipToCode: s.ship_to_code, shipToName: s.ship_to_name, shipToAddress1: s.ship_to_address1, shipToAddress2: s.ship_to_address2,
    shipToPostCode: s.ship_to_post_code, shipToCity: s.ship_to_city, shipToState: s.ship_to_state,
    shipToCountryRegionCode: s.ship_to_country_region_code, taxLiable: s.tax_liable, taxAreaCode: s.tax_area_code, isFirstNations: s.is_first_nations,
  };
}

/** The body's meaning, independent of key order, white space and ignored fields. */
function bodyHash(body: OrderBody): Buffer {
  const canonical = JSON.stringify([body.shipToCode, body.lines.map((l) => [l.sku, l.quantity]), body.customerReference ?? null]);
  return createHash('sha256').update(canonical).digest();
}

export function parseIdempotencyKey(header: unknown): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
    throw ordersRefusals.refuse('idempotency-key-invalid', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {});
  }
  return header;
}

/**
 * An order as the API shows it, statuses derived from the stored quantities. Its amounts are read
 * as stored, never priced again: an order placed before amounts were rounded to the minor unit
 * keeps the 4-place amounts it was placed, shown and handed to the ERP with.
 */
export function orderView(order: StoredOrder): Order {
  const items = order.lines.filter((l) => l.line_type === 'Item');
  const charges = order.lines.filter((l) => l.line_type === 'Charge');
  const quantities = (l: StoredOrder['lines'][number]) => ({
    ordered: l.quantity, invoiced: l.invoiced_quantity, shipped: l.shipped_quantity, cancelled: l.cancelled_quantity,
  });
  return {
    orderNumber: order.order_number,
    accountNo: order.account_no,
    shipToCode: order.ship_to_code,
    customerReference: order.customer_reference,
    currency: order.currency,
    placedAt: order.placed_at,
    status: orderStatus(items.map(quantities)),
    lines: items.map((l) => ({
      orderLineId: l.order_line_id,
      lineNumber: l.line_number,
      sku: l.sku as string,
      description: l.description,
      quantity: l.quantity,
      unitPrice: l.unit_price,
      lineAmount: l.line_amount,
      taxAmount: l.tax_amount,
      pricing: l.pricing as Order['lines'][number]['pricing'],
      tax: l.tax as Order['lines'][number]['tax'],
      invoicedQuantity: l.invoiced_quantity,
      shippedQuantity: l.shipped_quantity,
      cancelledQuantity: l.cancelled_quantity,
      status: lineStatus(quantities(l)),
      lastUpdatedAt: l.fulfilment_updated_at,
      lastUpdatedReference: l.fulfilment_reference,
    })),
    charges: charges.map((l) => ({
      orderLineId: l.order_line_id,
      lineNumber: l.line_number,
      chargeType: l.charge_type ?? FREIGHT_CHARGE,
      description: l.description,
      amount: l.line_amount,
      taxAmount: l.tax_amount,
    })),
    shipping: order.shipping as Order['shipping'],
    totals: totalsOf({ net: order.net_amount, tax: order.tax_amount, freight: order.freight_amount, total: order.total_amount }, currencyMinorUnit(order.currency)),
    erp: { state: order.erp_state, documentNo: order.erp_document_no, reason: order.erp_reason, attempts: order.erp_attempts },
    placedBy: order.placed_by,
    approvedBy: order.approval_state === 'Approved' ? order.decided_by : null,
    approval: order.approval_state === null ? null : {
      state: order.approval_state,
      submittedAt: order.submitted_at ?? order.placed_at,
      decidedAt: order.decided_at,
      reason: order.decided_reason,
    },
  };
}

/**
 * An order's lines as its quote prices them: the item lines 1..n in the basket's order, then the
 * freight charge n + 1. Placing an order stores them; approving one stores them again, priced then.
 */
export function pricedLines(quote: Quote, shipping: Extract<Shipping, { status: 'Quoted' }>): Array<Omit<NewOrderLine, 'order_line_id'>> {
  const items = quote.lines.map((line): Omit<NewOrderLine, 'order_line_id'> => ({
    line_number: line.lineNumber,
    line_type: 'Item',
    charge_type: null,
    sku: line.sku,
    description: line.name,
    quantity: line.quantity,
    unit_price: line.unitPrice,
    line_discount_percent: line.pricing.lineDiscountPercent,
    line_amount: line.lineAmount as string,
    tax_amount: line.tax.amount,
    tax_rate_percent: line.tax.ratePercent,
    tax_reason: line.tax.reason,
    pricing: line.pricing,
    tax: line.tax,
  }));
  return [...items, {
    line_number: items.length + 1,
    line_type: 'Charge',
    charge_type: FREIGHT_CHARGE,
    sku: null,
    description: `Freight: ${shipping.method} ${shipping.agentCode}/${shipping.serviceCode}`,
    quantity: 1,
    unit_price: shipping.amount,
    line_discount_percent: null,
    line_amount: shipping.amount,
    tax_amount: '0.0000',
    tax_rate_percent: null,
    tax_reason: 'Freight is not taxed',
    pricing: null,
    tax: null,
  }];
}

/**
 * POST /orders. Inside one transaction: the Idempotency-Key's earlier answer if there is one (the
 * same body: replayed; another body: refused), else the basket priced as a quote now, refused unless
 * the account is Active and the basket orderable (with the quote's reasons), the order
 * and its lines stored under the next order number, the answer kept for the key, and the ERP
 * hand-off enqueued. The ERP is never called here: an ERP that is down cannot block an order.
 * Placed in the portal (`placedBy`), the order records its user and enqueues its confirmation mail
 * in the same transaction; through the public API it has no user and no mail.
 *
 * A portal user with an order limit who may not approve orders (a Buyer), placing an order whose
 * total is over it, submits it for approval instead (issue 27): stored Held, not handed to the
 * ERP, no confirmation; the account's approvers are mailed and the submission recorded. The API's
 * orders are never subject to the portal's limits.
 */
export async function placeOrder(
  deps: OrderDeps, accountNo: string, body: unknown, idempotencyKeyHeader: unknown, placedBy?: { userId: string },
): Promise<PlacedOrder> {
  const key = parseIdempotencyKey(idempotencyKeyHeader);
  const basket = parseBasket<OrderBody>(body, validateOrderBody);
  const hash = bodyHash(basket);
  const at = (deps.now ?? (() => new Date()))();
  return withTransaction(deps.pool, async (tx) => {
    if (key !== undefined) {
      const earlier = await claimIdempotencyKey(tx, accountNo, key);
      if (earlier !== undefined) {
        if (!earlier.body_hash.equals(hash)) {
          throw ordersRefusals.refuse('idempotency-key-reused', 'This Idempotency-Key was used in the last 24 hours with another body; use a new key for a new order.', {});
        }
        return { body: earlier.response, orderNumber: earlier.order_number, replayed: true };
      }
    }
    const priced = await priceBasket(deps, tx, accountNo, basket, at, { forOrder: true });
    if (priced.blockers.length > 0) {
      throw ordersRefusals.refuse('basket-not-orderable', `The basket cannot be ordered: ${priced.blockers.map((b) => b.message).join(' ')}`, { blockers: priced.blockers });
    }
    const { quote, shipping } = priced;
    if (shipping.status !== 'Quoted') throw new Error('an orderable basket has a quoted shipping');
    const terms = placedBy === undefined ? undefined : await findBuyingTerms(tx, placedBy.userId, accountNo);
    const awaiting = terms !== undefined && needsApproval(terms, quote.totals.total);
    const orderNumber = await nextOrderNumber(tx);
    const lines: NewOrderLine[] = pricedLines(quote, shipping).map((line) => ({ order_line_id: randomUUID(), ...line }));
    const stored: StoredOrder = {
      order_number: orderNumber,
      account_no: accountNo,
      ship_to_code: quote.shipToCode,
      customer_reference: basket.customerReference ?? null,
      currency: quote.currency,
      placed_at: at.toISOString(),
      net_amount: quote.totals.net,
      tax_amount: quote.totals.tax,
      freight_amount: quote.totals.freight,
      total_amount: quote.totals.total,
      shipping: shipping as unknown as Record<string, unknown>,
      erp_state: awaiting ? 'Held' : 'Queued',
      erp_document_no: null,
      erp_reason: null,
      erp_attempts: 0,
      approval_state: awaiting ? 'AwaitingApproval' : null,
      submitted_at: awaiting ? at.toISOString() : null,
      decided_at: null,
      decided_reason: null,
      placed_by_user_id: placedBy?.userId ?? null,
      decided_by_user_id: null,
      placed_by: terms === undefined ? null : { name: terms.name, email: terms.email },
      decided_by: null,
      lines: lines.map((l) => ({
        ...l, invoiced_quantity: 0, shipped_quantity: 0, cancelled_quantity: 0, fulfilment_updated_at: null, fulfilment_reference: null,
      })),
    };
    await insertOrder(tx, { ...stored, ship_to: shipToSnapshot(priced.shipTo) }, lines);
    const response = JSON.stringify(orderView(stored));
    if (key !== undefined) await storeIdempotentAnswer(tx, { accountNo, key, bodyHash: hash, orderNumber, response });
    if (awaiting && placedBy !== undefined) {
      await enqueueApprovalRequest(tx, orderNumber);
      await recordActivity(tx, {
        accountNo, kind: 'submission', actorUserId: placedBy.userId, orderNumber,
        details: { total: quote.totals.total, orderLimit: terms.orderLimit, currency: quote.currency },
      });
      return { body: response, orderNumber, replayed: false, overLimit: terms.orderLimit as string };
    }
    await enqueueErpHandoff(tx, orderNumber);
    if (placedBy !== undefined) await enqueueOrderConfirmation(tx, orderNumber);
    return { body: response, orderNumber, replayed: false };
  });
}

/**
 * The number of the order placed under an Idempotency-Key of the account in the last 24 hours, if
 * any: the portal finds the order a resubmitted form already placed from a basket since emptied.
 */
export async function orderPlacedWithKey(deps: OrderDeps, accountNo: string, key: string): Promise<string | undefined> {
  return withTransaction(deps.pool, async (tx) => (await claimIdempotencyKey(tx, accountNo, key))?.order_number);
}

/**
 * One order of the account. The public API sees only placed orders (an order awaiting approval,
 * declined or withdrawn reads as one that does not exist); the portal asks for those too
 * (`unplaced`), to show them to their buyer and the approvers.
 */
export async function getOrder(deps: OrderDeps, accountNo: string, orderNumber: string, scope: OrderScope = {}): Promise<Order> {
  const order = await findOrder(deps.pool, accountNo, orderNumber, scope);
  if (order === undefined) {
    if (!(await accountExists(deps.pool, accountNo))) throw accountNotFound(accountNo);
    // Another account's order reads exactly like one that does not exist.
    throw ordersRefusals.refuse('order-not-found', `Order ${orderNumber} does not exist.`, { orderNumber });
  }
  return orderView(order);
}

/** A page of the account's orders, newest first: placed ones only, unless `unplaced` (as getOrder). */
export async function listAccountOrders(
  deps: OrderDeps, accountNo: string, page: number, pageSize: number, scope: OrderScope = {},
): Promise<{ data: Order[]; page: number; pageSize: number; total: number }> {
  if (!(await accountExists(deps.pool, accountNo))) throw accountNotFound(accountNo);
  const { orders, total } = await listOrders(deps.pool, accountNo, page, pageSize, scope);
  return { data: orders.map(orderView), page, pageSize, total };
}

/** Housekeeping: Idempotency-Key answers past their 24 hours, which no retry may reuse any more; the number removed. */
export function deleteExpiredIdempotentAnswers(q: Queryable): Promise<number> {
  return deleteExpiredAnswers(q);
}
