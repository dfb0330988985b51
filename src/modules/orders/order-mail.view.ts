import { formatDate, formatMoney, formatQuantity } from '../../platform/format.js';
import { chargeWords, FREIGHT_CHARGE } from './charge-words.js';
import type { DespatchLine, DespatchStatus } from './orders.engine.js';
import type { MailedOrder } from './order-mail.repository.js';

/**
 * What the order mails say, as the templates under `mail/` show it: amounts, quantities and dates
 * written as the portal writes them (platform/format.ts), from the order as stored.
 */

/** The order's page in the portal: `PUBLIC_URL/orders/<orderNumber>`. */
export const orderLink = (publicUrl: string, orderNumber: string): string => `${publicUrl}/orders/${encodeURIComponent(orderNumber)}`;

const STATUS_WORDS: Record<DespatchStatus, string> = { PartShipped: 'Part shipped', Shipped: 'Shipped' };

/** The ship-to as placed: its code and name, then its address, one part a line. */
function shipToLines(order: MailedOrder): string[] {
  const s = order.ship_to;
  const text = (key: string): string | null => (typeof s[key] === 'string' && s[key] !== '' ? s[key] : null);
  const first = [order.ship_to_code, text('shipToName')].filter(Boolean).join(' ');
  const cityLine = [text('shipToCity'), text('shipToState'), text('shipToPostCode')].filter(Boolean).join(' ');
  return [first, text('shipToAddress1'), text('shipToAddress2'), cityLine || null, text('shipToCountryRegionCode')].filter((l): l is string => Boolean(l));
}

/** What both mails show of the order. */
function orderHeader(order: MailedOrder, recipientName: string, publicUrl: string) {
  return {
    name: recipientName,
    orderNumber: order.order_number,
    accountNo: order.account_no,
    accountName: order.account_name,
    placedOn: formatDate(order.placed_at),
    reference: order.customer_reference,
    shipTo: shipToLines(order),
    link: orderLink(publicUrl, order.order_number),
  };
}

export type ConfirmationMailData = ReturnType<typeof confirmationMailData>;

/** The order confirmation: each item line with its price and amount, the charges, the four totals. */
export function confirmationMailData(order: MailedOrder, recipientName: string, publicUrl: string) {
  const money = (amount: string | null) => formatMoney(amount, order.currency);
  return {
    subject: `Order ${order.order_number} placed for ${order.account_name}`,
    ...orderHeader(order, recipientName, publicUrl),
    lines: order.lines.filter((l) => l.line_type === 'Item').map((l) => ({
      sku: l.sku ?? '',
      description: l.description ?? '',
      quantity: formatQuantity(l.quantity),
      unitPrice: money(l.unit_price),
      amount: money(l.line_amount),
    })),
    charges: order.lines.filter((l) => l.line_type === 'Charge').map((l) => ({
      description: chargeWords({ chargeType: l.charge_type ?? FREIGHT_CHARGE, description: l.description }, order.shipping),
      amount: money(l.line_amount),
    })),
    totals: { net: money(order.net_amount), tax: money(order.tax_amount), freight: money(order.freight_amount), total: money(order.total_amount) },
  };
}

export type DespatchMailData = ReturnType<typeof despatchMailData>;

/** A despatch notice: every item line with what shipped in the update that raised it, so far, and what is still to come. */
export function despatchMailData(order: MailedOrder, status: DespatchStatus, lines: readonly DespatchLine[], recipientName: string, publicUrl: string) {
  return {
    subject: `Order ${order.order_number} ${status === 'Shipped' ? 'shipped' : 'part shipped'}`,
    status: STATUS_WORDS[status],
    shipped: status === 'Shipped',
    ...orderHeader(order, recipientName, publicUrl),
    accountLink: `${publicUrl}/account`,
    lines: lines.map((l) => ({
      sku: l.sku,
      description: l.description ?? '',
      ordered: formatQuantity(l.ordered),
      shippedNow: formatQuantity(Math.max(0, l.shippedNow)),
      shipped: formatQuantity(l.shipped),
      toCome: formatQuantity(Math.max(0, l.ordered - l.shipped - l.cancelled)),
    })),
  };
}

/** The Approvals page's view of one order: `PUBLIC_URL/approvals/<orderNumber>`. */
export const approvalLink = (publicUrl: string, orderNumber: string): string => `${publicUrl}/approvals/${encodeURIComponent(orderNumber)}`;

export type ApprovalRequestMailData = ReturnType<typeof approvalRequestMailData>;

/** To each approver: who submitted the order, its lines and totals, and the link to approve or decline it. */
export function approvalRequestMailData(order: MailedOrder, recipientName: string, publicUrl: string) {
  const buyer = order.placed_by?.name ?? 'A buyer';
  return {
    ...confirmationMailData(order, recipientName, publicUrl),
    subject: `Order ${order.order_number} for ${order.account_name} awaits your approval`,
    buyerName: buyer,
    buyerEmail: order.placed_by?.email ?? '',
    placedLabel: 'Submitted',
    placedOn: formatDate(order.submitted_at ?? order.placed_at),
    link: approvalLink(publicUrl, order.order_number),
  };
}

export type DecisionMailData = ReturnType<typeof decisionMailData>;

/** To the buyer: approved (the order as now placed, re-priced at approval) or declined (with the reason). */
export function decisionMailData(order: MailedOrder, decision: 'Approved' | 'Declined', recipientName: string, publicUrl: string) {
  return {
    ...confirmationMailData(order, recipientName, publicUrl),
    subject: `Order ${order.order_number} ${decision === 'Approved' ? 'approved' : 'declined'}`,
    approverName: order.decided_by?.name ?? 'An administrator',
    decidedOn: formatDate(order.decided_at),
    reason: order.decided_reason ?? '',
  };
}
