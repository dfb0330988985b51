import type { Queryable } from '../../platform/db/pool.js';
import type { DespatchLine, DespatchStatus, FulfilledLine } from './orders.engine.js';
import { findPlacedOrder, type ShipToSnapshot, type StoredOrder } from './orders.repository.js';

/** SQL of the order mail: who placed an order, and the despatch notices raised (migration 1764000003600). */

/**
 * Of these orders, those a portal user placed (the only ones mailed), locked until the caller's
 * transaction ends, in order-number order so that concurrent batches lock them alike. An update
 * batch takes this lock after its line locks and before it reads the orders' lines: two batches
 * updating different lines of one order then see each other's lines, and one of them sees the
 * order become Shipped. `FOR NO KEY UPDATE` leaves the lines' foreign-key checks free.
 */
export async function lockMailedOrders(q: Queryable, orderNumbers: readonly string[]): Promise<string[]> {
  if (orderNumbers.length === 0) return [];
  const { rows } = await q.query<{ order_number: string }>(
    `SELECT order_number FROM orders
      WHERE order_number = ANY($1::text[]) AND placed_by_user_id IS NOT NULL
      ORDER BY order_number FOR NO KEY UPDATE`,
    [orderNumbers],
  );
  return rows.map((r) => r.order_number);
}

/**
 * The item lines of these orders as stored now, by line number. A statement of its own after
 * lockMailedOrders: a statement reads what was committed when it started, so one that waited for
 * the lock would not see what the transaction it waited for wrote.
 */
export async function itemLinesOf(q: Queryable, orderNumbers: readonly string[]): Promise<Map<string, FulfilledLine[]>> {
  const byOrder = new Map<string, FulfilledLine[]>();
  if (orderNumbers.length === 0) return byOrder;
  const { rows } = await q.query<FulfilledLine & { orderNumber: string }>(
    `SELECT order_number AS "orderNumber", line_number AS "lineNumber", sku, description, quantity AS ordered,
            invoiced_quantity AS invoiced, shipped_quantity AS shipped, cancelled_quantity AS cancelled
       FROM order_lines
      WHERE order_number = ANY($1::text[]) AND line_type = 'Item'
      ORDER BY order_number, line_number`,
    [orderNumbers],
  );
  for (const { orderNumber, ...line } of rows) {
    const lines = byOrder.get(orderNumber) ?? [];
    lines.push(line);
    byOrder.set(orderNumber, lines);
  }
  return byOrder;
}

export interface RaisedNotice { orderNumber: string; status: DespatchStatus; lines: DespatchLine[] }

/**
 * Records the notices not raised before; returns those recorded now. A Part shipped notice is not
 * raised for an order already noticed Shipped (a correction that took it back).
 */
export async function insertDespatchNotices(q: Queryable, notices: readonly RaisedNotice[]): Promise<Array<{ orderNumber: string; status: DespatchStatus }>> {
  if (notices.length === 0) return [];
  const { rows } = await q.query<{ orderNumber: string; status: DespatchStatus }>(
    `INSERT INTO order_despatch_notices (order_number, status, lines)
     SELECT n.order_number, n.status, n.lines
       FROM jsonb_to_recordset($1::jsonb) AS n(order_number text, status text, lines jsonb)
      WHERE n.status = 'Shipped' OR NOT EXISTS (
              SELECT 1 FROM order_despatch_notices s WHERE s.order_number = n.order_number AND s.status = 'Shipped')
      ORDER BY n.order_number, n.status
     ON CONFLICT (order_number, status) DO NOTHING
     RETURNING order_number AS "orderNumber", status`,
    [JSON.stringify(notices.map((n) => ({ order_number: n.orderNumber, status: n.status, lines: n.lines })))],
  );
  return rows;
}

/** An order as its mail tells it: the stored order, its ship-to as placed, its account's name and who placed it. */
export type MailedOrder = StoredOrder & { ship_to: ShipToSnapshot; account_name: string; placed_by_user_id: string | null };

export async function findMailedOrder(q: Queryable, orderNumber: string): Promise<MailedOrder | undefined> {
  const order = await findPlacedOrder(q, orderNumber);
  if (order === undefined) return undefined;
  const { rows } = await q.query<{ account_name: string; placed_by_user_id: string | null }>(
    `SELECT a.name AS account_name, o.placed_by_user_id::text AS placed_by_user_id
       FROM orders o JOIN accounts a USING (account_no) WHERE o.order_number = $1`,
    [orderNumber],
  );
  const row = rows[0];
  return row === undefined ? undefined : { ...order, ...row };
}

export async function findDespatchNotice(q: Queryable, orderNumber: string, status: DespatchStatus): Promise<DespatchLine[] | undefined> {
  const { rows } = await q.query<{ lines: DespatchLine[] }>(
    'SELECT lines FROM order_despatch_notices WHERE order_number = $1 AND status = $2',
    [orderNumber, status],
  );
  return rows[0]?.lines;
}
