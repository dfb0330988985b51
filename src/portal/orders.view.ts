import type { AccountView } from '../modules/ledger/index.js';
import { chargeWords, type Order, type OrderApproval } from '../modules/orders/index.js';
import type { SkuColourway } from '../modules/search/index.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import { lineHref } from './links.js';

/** The orders pages' view models: the account's orders and one order, statuses in words. */

const STATUS_WORDS: Record<Order['status'], string> = {
  Pending: 'Pending', Invoiced: 'Invoiced', PartShipped: 'Part shipped', Shipped: 'Shipped', Cancelled: 'Cancelled',
};
export const statusWords = (status: Order['status']): string => STATUS_WORDS[status] ?? status;

/** An order submitted for approval in words, while it is not placed ("Awaiting approval", "Declined", "Withdrawn"); undefined once placed. */
const UNPLACED_WORDS: Partial<Record<OrderApproval['state'], string>> = {
  AwaitingApproval: 'Awaiting approval', Declined: 'Declined', Withdrawn: 'Withdrawn',
};

/** The order's status in words: its approval while not placed, else the status derived from its quantities. */
export const orderStatusWords = (o: Order): string => (o.approval === null ? undefined : UNPLACED_WORDS[o.approval.state]) ?? statusWords(o.status);

/** The ERP hand-off in words. */
export function erpWords(erp: Order['erp']): string {
  if (erp.state === 'Held') return 'Not sent: the order is not placed';
  if (erp.state === 'Accepted') return erp.documentNo === null ? 'Accepted by our order system' : `Accepted by our order system as ${erp.documentNo}`;
  if (erp.state === 'Refused') return `Refused by our order system: ${erp.reason ?? 'no reason given'}. Contact your account manager.`;
  return 'Queued: waiting to be sent to our order system';
}

/** One row of the orders list. */
export function orderRow(o: Order, currency: string) {
  return {
    orderNumber: o.orderNumber,
    placed: formatDate(o.placedAt),
    reference: o.customerReference,
    status: orderStatusWords(o),
    total: formatMoney(o.totals.total, currency),
  };
}

/** The ship-to's name and address on one line, or null when the account no longer has it. */
function shipToLine(account: AccountView, shipToCode: string): string | null {
  const s = account.shipToAddresses.find((a) => a.shipToCode === shipToCode);
  if (s === undefined) return null;
  return [s.shipToName, s.shipToAddress1, s.shipToAddress2, s.shipToCity, s.shipToState, s.shipToPostCode, s.shipToCountryRegionCode].filter(Boolean).join(', ');
}

function orderLine(l: Order['lines'][number], currency: string, colourways: ReadonlyMap<string, SkuColourway>) {
  return {
    lineNumber: l.lineNumber,
    sku: l.sku,
    href: lineHref(l.sku, colourways),
    description: l.description,
    ordered: formatQuantity(l.quantity),
    invoiced: formatQuantity(l.invoicedQuantity),
    shipped: formatQuantity(l.shippedQuantity),
    cancelled: formatQuantity(l.cancelledQuantity),
    status: statusWords(l.status),
    unitPrice: formatMoney(l.unitPrice, currency),
    lineAmount: formatMoney(l.lineAmount, currency),
    tax: formatMoney(l.taxAmount, currency),
  };
}

/** The four totals in the site currency. */
export function totalsView(totals: { net: string; tax: string; freight: string; total: string }, currency: string) {
  return {
    net: formatMoney(totals.net, currency),
    tax: formatMoney(totals.tax, currency),
    freight: formatMoney(totals.freight, currency),
    total: formatMoney(totals.total, currency),
  };
}

/** What an order's page says of its approval: its state, when it was submitted and decided, the decline's reason. */
function approvalView(order: Order) {
  const a = order.approval;
  if (a === null) return null;
  const awaiting = a.state === 'AwaitingApproval';
  return {
    awaiting,
    declined: a.state === 'Declined',
    withdrawn: a.state === 'Withdrawn',
    submittedAt: formatDate(a.submittedAt),
    decidedAt: a.decidedAt === null ? null : formatDate(a.decidedAt),
    reason: a.reason,
  };
}

/**
 * One order as its page shows it; each line linked to its product page where `colourways` has its
 * SKU (`colourwaysOfSkus`). `mayWithdraw`: the viewer is the buyer who submitted it, so the page
 * offers "Withdraw" while it awaits approval (withdrawOrder decides).
 */
export function orderView(
  order: Order, account: AccountView, currency: string, colourways: ReadonlyMap<string, SkuColourway> = new Map(), viewer: { mayWithdraw?: boolean } = {},
) {
  const approval = approvalView(order);
  return {
    orderNumber: order.orderNumber,
    placedAt: formatDate(order.placedAt),
    placed: order.approval === null || order.approval.state === 'Approved',
    reference: order.customerReference,
    status: orderStatusWords(order),
    erp: erpWords(order.erp),
    placedBy: order.placedBy?.name ?? null,
    approvedBy: order.approvedBy?.name ?? null,
    approval: approval === null ? null : { ...approval, canWithdraw: approval.awaiting && viewer.mayWithdraw === true },
    total: formatMoney(order.totals.total, currency),
    shipToCode: order.shipToCode,
    shipTo: shipToLine(account, order.shipToCode),
    lines: order.lines.map((l) => orderLine(l, currency, colourways)),
    charges: order.charges.map((c) => ({ description: chargeWords(c, order.shipping), amount: formatMoney(c.amount, currency), tax: formatMoney(c.taxAmount, currency) })),
    totals: totalsView(order.totals, currency),
  };
}

/**
 * The one-time message placing an order leaves for its page (flash.ts): "Order placed", and with
 * `kept` that the basket changed meanwhile and was kept. It names the order, so it is shown only on
 * that order's page, once; a reload or a bookmark shows the order alone.
 */
export type Placed = 'placed' | 'kept';
const PLACED_FLASH = /^order-(placed|kept):(.+)$/;
const SUBMITTED_FLASH = /^order-submitted:([^:]+):(.+)$/;

export const placedFlash = (orderNumber: string, placed: Placed): string => `order-${placed}:${orderNumber}`;

/** An order over its buyer's limit, submitted for approval: the flash names the limit, for the message. */
export const submittedFlash = (orderNumber: string, limit: string): string => `order-submitted:${orderNumber}:${limit}`;

/**
 * What the order page shows of the flash it took: the "Order placed" panel, the message that the
 * order went for approval (with the buyer's limit in words), another page's message as a notice, or nothing.
 */
export function orderFlash(flash: string | undefined, orderNumber: string, currency: string): { placed?: Placed; submitted?: string; notice?: string } {
  if (flash === undefined) return {};
  const submitted = SUBMITTED_FLASH.exec(flash);
  if (submitted !== null) {
    return submitted[1] === orderNumber
      ? { submitted: `Your order is over your limit of ${formatMoney(submitted[2] as string, currency)}, so it has been sent to your account's administrators for approval.` }
      : {};
  }
  const placed = PLACED_FLASH.exec(flash);
  if (placed === null) return { notice: flash };
  return placed[2] === orderNumber ? { placed: placed[1] as Placed } : {};
}
