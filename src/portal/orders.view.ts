import type { AccountView } from '../modules/ledger/index.js';
import { chargeWords, type Order } from '../modules/orders/index.js';
import type { SkuColourway } from '../modules/search/index.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import { lineHref } from './links.js';

/** The orders pages' view models: the account's orders and one order, statuses in words. */

const STATUS_WORDS: Record<Order['status'], string> = {
  Pending: 'Pending', Invoiced: 'Invoiced', PartShipped: 'Part shipped', Shipped: 'Shipped', Cancelled: 'Cancelled',
};
export const statusWords = (status: Order['status']): string => STATUS_WORDS[status] ?? status;

/** The ERP hand-off in words. */
export function erpWords(erp: Order['erp']): string {
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
    status: statusWords(o.status),
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

/** One order as its page shows it; each line linked to its product page where `colourways` has its SKU (`colourwaysOfSkus`). */
export function orderView(order: Order, account: AccountView, currency: string, colourways: ReadonlyMap<string, SkuColourway> = new Map()) {
  return {
    orderNumber: order.orderNumber,
    placedAt: formatDate(order.placedAt),
    reference: order.customerReference,
    status: statusWords(order.status),
    erp: erpWords(order.erp),
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

export const placedFlash = (orderNumber: string, placed: Placed): string => `order-${placed}:${orderNumber}`;

/** What the order page shows of the flash it took: the "Order placed" panel, another page's message as a notice, or nothing. */
export function orderFlash(flash: string | undefined, orderNumber: string): { placed?: Placed; notice?: string } {
  if (flash === undefined) return {};
  const placed = PLACED_FLASH.exec(flash);
  if (placed === null) return { notice: flash };
  return placed[2] === orderNumber ? { placed: placed[1] as Placed } : {};
}
