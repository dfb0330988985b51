/**
 * Derived order status (decisions §3): a pure function of the quantities an order line was ordered
 * with and the totals the ERP reported for it, computed on every read and never stored. Because it
 * is derived, a repeated or out-of-order order-line update changes nothing.
 */

export const LINE_STATUSES = ['Cancelled', 'Shipped', 'PartShipped', 'Invoiced', 'Pending'] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];

/** An item line's quantities: ordered, and the running totals invoiced, shipped and cancelled (whole numbers ≥ 0). */
export interface LineQuantities {
  ordered: number;
  invoiced: number;
  shipped: number;
  cancelled: number;
}

/** Per item line, the first rule that holds: Cancelled C ≥ O; Shipped S > 0 and S + C ≥ O; PartShipped S > 0; Invoiced I > 0; Pending. */
export function lineStatus(line: LineQuantities): LineStatus {
  if (line.cancelled >= line.ordered) return 'Cancelled';
  if (line.shipped > 0 && line.shipped + line.cancelled >= line.ordered) return 'Shipped';
  if (line.shipped > 0) return 'PartShipped';
  if (line.invoiced > 0) return 'Invoiced';
  return 'Pending';
}

/**
 * The order's status from its item lines (charge lines never count): Cancelled when every line is;
 * else Shipped when every line not cancelled is shipped; else PartShipped when any line has shipped
 * something; else Invoiced when any has invoiced something; else Pending. An order with no item line
 * (the service never issues one) is Pending.
 */
export function orderStatus(lines: readonly LineQuantities[]): LineStatus {
  if (lines.length === 0) return 'Pending';
  const statuses = lines.map(lineStatus);
  if (statuses.every((s) => s === 'Cancelled')) return 'Cancelled';
  if (statuses.every((s) => s === 'Cancelled' || s === 'Shipped')) return 'Shipped';
  if (lines.some((l) => l.shipped > 0)) return 'PartShipped';
  if (lines.some((l) => l.invoiced > 0)) return 'Invoiced';
  return 'Pending';
}

/* ---- Despatch notices (docs/decisions.md "Order mail") ---- */

/** An item line's quantities with what a despatch notice names it by. */
export interface FulfilledLine extends LineQuantities {
  lineNumber: number;
  sku: string;
  description: string | null;
}

export type DespatchStatus = 'PartShipped' | 'Shipped';

/** What a despatch notice says of one item line: ordered, shipped by the update that raised it, shipped so far, cancelled. */
export interface DespatchLine {
  lineNumber: number;
  sku: string;
  description: string | null;
  ordered: number;
  shippedNow: number;
  shipped: number;
  cancelled: number;
}

/**
 * The despatch notice an update raises for one order, given its item lines before and after it:
 * Shipped when the update made the order Shipped; Part shipped when it made an order of which
 * nothing had shipped Part shipped. Nothing otherwise: more of a part-shipped order shipping, a
 * correction, or an order cancelled. That a notice is raised at most once per order and status is
 * the database's to keep (a re-sent update may find the order where an earlier one left it).
 */
export function despatchNotice(before: readonly FulfilledLine[], after: readonly FulfilledLine[]): { status: DespatchStatus; lines: DespatchLine[] } | undefined {
  const now = orderStatus(after);
  const notice = (status: DespatchStatus) => {
    const shippedBefore = new Map(before.map((l) => [l.lineNumber, l.shipped]));
    const lines = after.map((l) => ({
      lineNumber: l.lineNumber, sku: l.sku, description: l.description, ordered: l.ordered,
      shippedNow: l.shipped - (shippedBefore.get(l.lineNumber) ?? 0), shipped: l.shipped, cancelled: l.cancelled,
    }));
    return { status, lines };
  };
  if (now === 'Shipped' && orderStatus(before) !== 'Shipped') return notice('Shipped');
  if (now === 'PartShipped' && before.every((l) => l.shipped === 0)) return notice('PartShipped');
  return undefined;
}
