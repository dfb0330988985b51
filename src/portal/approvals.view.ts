import type { Actor, ApprovalFigures, Order } from '../modules/orders/index.js';
import { amountText } from '../platform/decimal.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import type { SignedInBuyer } from './session.js';

/** The Approvals pages' view models: the orders awaiting approval, and one with the old and new figures when they changed. */

/** The signed-in user as the approval services take them: who acts, for which account, in which role. */
export const actorOf = (buyer: SignedInBuyer): Actor => ({ userId: buyer.userId, accountNo: buyer.accountNo, role: buyer.role });

/** One row of the Approvals page. */
export function approvalRow(o: Order, currency: string) {
  return {
    orderNumber: o.orderNumber,
    submitted: formatDate(o.approval?.submittedAt ?? o.placedAt),
    placedBy: o.placedBy?.name ?? 'Unknown',
    reference: o.customerReference,
    lines: o.lines.length,
    total: formatMoney(o.totals.total, currency),
  };
}

/**
 * The figures as submitted and as priced now, side by side, each row marked when it changed: what
 * the approver confirms. Rows are the item lines by line number, then freight, tax and the total.
 */
export function changedFigures(before: ApprovalFigures, now: ApprovalFigures, currency: string) {
  const money = (amount: string | null) => formatMoney(amount, currency);
  const differs = (a: string | null, b: string | null) => (a === null || b === null ? a !== b : amountText(a) !== amountText(b));
  const nowLines = new Map(now.lines.map((l) => [l.lineNumber, l]));
  const lines = before.lines.map((l) => {
    const n = nowLines.get(l.lineNumber);
    const unitNow = n?.unitPrice ?? null;
    const amountNow = n?.lineAmount ?? null;
    return {
      label: `${l.sku} × ${formatQuantity(l.quantity)}`,
      unitBefore: money(l.unitPrice), unitNow: money(unitNow),
      before: money(l.lineAmount), now: money(amountNow),
      changed: differs(l.unitPrice, unitNow) || differs(l.lineAmount, amountNow) || differs(l.taxAmount, n?.taxAmount ?? null),
    };
  });
  const total = (label: string, a: string, b: string) => ({ label, before: money(a), now: money(b), changed: differs(a, b) });
  return {
    lines,
    totals: [total('Net', before.net, now.net), total('Freight', before.freight, now.freight), total('Tax', before.tax, now.tax), total('Total', before.total, now.total)],
  };
}
