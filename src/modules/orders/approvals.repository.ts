import type { Queryable } from '../../platform/db/pool.js';
import type { Role } from '../users/index.js';
import { findOrder, type OrderLineRow, type StoredOrder } from './orders.repository.js';

/**
 * SQL of order approval (migration 1764000003820): the placing user's terms in the account, the
 * account's people whom a submission is mailed to, and the approval, decline and withdrawal of an
 * order awaiting approval. Memberships are read here, not written: the users module owns them.
 */

/** The user's role and order limit in the account, while active in it, and their name and email. */
export async function findBuyingTerms(
  q: Queryable, userId: string, accountNo: string,
): Promise<{ role: Role; orderLimit: string | null; name: string; email: string } | undefined> {
  const { rows } = await q.query<{ role: Role; orderLimit: string | null; name: string; email: string }>(
    `SELECT ua.role, ua.order_limit::text AS "orderLimit", u.name, u.email
       FROM user_accounts ua JOIN users u ON u.id = ua.user_id
      WHERE ua.user_id = $1 AND ua.account_no = $2 AND ua.deactivated_at IS NULL`,
    [userId, accountNo],
  );
  return rows[0];
}

/** The account's active people with their roles (the caller picks those who may approve). */
export async function activeMembers(q: Queryable, accountNo: string): Promise<Array<{ userId: string; name: string; email: string; role: Role }>> {
  const { rows } = await q.query<{ userId: string; name: string; email: string; role: Role }>(
    `SELECT u.id::text AS "userId", u.name, u.email, ua.role
       FROM user_accounts ua JOIN users u ON u.id = ua.user_id
      WHERE ua.account_no = $1 AND ua.deactivated_at IS NULL
      ORDER BY u.email`,
    [accountNo],
  );
  return rows;
}

/** The account's order, locked until the caller's transaction ends, whatever its approval state. */
export async function lockOrder(q: Queryable, accountNo: string, orderNumber: string): Promise<StoredOrder | undefined> {
  const { rowCount } = await q.query('SELECT 1 FROM orders WHERE account_no = $1 AND order_number = $2 FOR UPDATE', [accountNo, orderNumber]);
  if (rowCount !== 1) return undefined;
  return findOrder(q, accountNo, orderNumber, { unplaced: true });
}

/** An item or charge line's figures as re-priced at approval. */
export type RepricedLine = Pick<OrderLineRow,
  'order_line_id' | 'description' | 'unit_price' | 'line_discount_percent' | 'line_amount' | 'tax_amount' | 'tax_rate_percent' | 'tax_reason' | 'pricing' | 'tax'>;

export interface Approval {
  orderNumber: string;
  approverId: string;
  at: string;
  amounts: { net: string; tax: string; freight: string; total: string };
  shipping: Record<string, unknown>;
  lines: readonly RepricedLine[];
}

/**
 * Approved: the figures as priced now, placed at this instant, Held → Queued for the hand-off.
 * False when the order was no longer awaiting approval.
 */
export async function storeApproval(q: Queryable, a: Approval): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE orders
        SET approval_state = 'Approved', decided_by_user_id = $2, decided_at = $3, placed_at = $3,
            net_amount = $4, tax_amount = $5, freight_amount = $6, total_amount = $7, shipping = $8,
            erp_state = 'Queued', changed_at = now()
      WHERE order_number = $1 AND approval_state = 'AwaitingApproval' AND erp_state = 'Held'`,
    [a.orderNumber, a.approverId, a.at, a.amounts.net, a.amounts.tax, a.amounts.freight, a.amounts.total, JSON.stringify(a.shipping)],
  );
  if (rowCount !== 1) return false;
  await q.query(
    `UPDATE order_lines l
        SET description = n.description, unit_price = n.unit_price, line_discount_percent = n.line_discount_percent,
            line_amount = n.line_amount, tax_amount = n.tax_amount, tax_rate_percent = n.tax_rate_percent,
            tax_reason = n.tax_reason, pricing = n.pricing, tax = n.tax, changed_at = now()
       FROM jsonb_to_recordset($2::jsonb) AS n(order_line_id uuid, description text, unit_price numeric, line_discount_percent numeric,
            line_amount numeric, tax_amount numeric, tax_rate_percent numeric, tax_reason text, pricing jsonb, tax jsonb)
      WHERE l.order_number = $1 AND l.order_line_id = n.order_line_id`,
    [a.orderNumber, JSON.stringify(a.lines)],
  );
  return true;
}

/** Declined (with its reason) or withdrawn: final; the order stays Held. False when it was no longer awaiting approval. */
export async function storeDecision(
  q: Queryable, orderNumber: string, state: 'Declined' | 'Withdrawn', userId: string, reason: string | null,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE orders SET approval_state = $2, decided_by_user_id = $3, decided_at = now(), decided_reason = $4, changed_at = now()
      WHERE order_number = $1 AND approval_state = 'AwaitingApproval'`,
    [orderNumber, state, userId, reason],
  );
  return rowCount === 1;
}
