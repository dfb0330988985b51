import type { Queryable } from '../../platform/db/pool.js';

/** SQL of orders, their lines and their Idempotency-Key answers (migration 1764000001900). */

export interface OrderRow {
  order_number: string;
  account_no: string;
  ship_to_code: string;
  customer_reference: string | null;
  currency: string;
  placed_at: string;
  net_amount: string;
  tax_amount: string;
  freight_amount: string;
  total_amount: string;
  shipping: Record<string, unknown>;
  erp_state: ErpState;
  erp_document_no: string | null;
  erp_reason: string | null;
  erp_attempts: number;
  /** Null: never subject to approval (migration 1764000003820). */
  approval_state: ApprovalState | null;
  submitted_at: string | null;
  decided_at: string | null;
  decided_reason: string | null;
  /** The portal user who placed it (null through the public API) and who approved, declined or withdrew it. */
  placed_by_user_id: string | null;
  decided_by_user_id: string | null;
  placed_by: OrderPerson | null;
  decided_by: OrderPerson | null;
}

/** Held: not to be handed to the ERP (awaiting approval, declined or withdrawn); the hand-off sends only Queued orders. */
export type ErpState = 'Held' | 'Queued' | 'Accepted' | 'Refused';
export type ApprovalState = 'AwaitingApproval' | 'Approved' | 'Declined' | 'Withdrawn';
export interface OrderPerson { name: string; email: string }

/** An order that counts as placed: never subject to approval, or approved (the others are not orders yet). */
export const PLACED = "(o.approval_state IS NULL OR o.approval_state = 'Approved')";

export interface OrderLineRow {
  order_line_id: string;
  line_number: number;
  line_type: 'Item' | 'Charge';
  charge_type: string | null;
  sku: string | null;
  description: string | null;
  quantity: number;
  unit_price: string | null;
  line_discount_percent: string | null;
  line_amount: string;
  tax_amount: string;
  tax_rate_percent: string | null;
  tax_reason: string | null;
  pricing: Record<string, unknown> | null;
  tax: Record<string, unknown> | null;
  invoiced_quantity: number;
  shipped_quantity: number;
  cancelled_quantity: number;
  fulfilment_updated_at: string | null;
  fulfilment_reference: string | null;
}

export type NewOrder = Pick<OrderRow,
  'order_number' | 'account_no' | 'ship_to_code' | 'customer_reference' | 'currency' | 'placed_at' | 'net_amount' | 'tax_amount'
  | 'freight_amount' | 'total_amount' | 'shipping'> & Partial<Pick<OrderRow, 'erp_state' | 'approval_state' | 'submitted_at'>> & {
  ship_to: Record<string, unknown>;
  /** The portal user who placed it; null through the public API. */
  placed_by_user_id: string | null;
};

export type NewOrderLine = Omit<OrderLineRow, 'invoiced_quantity' | 'shipped_quantity' | 'cancelled_quantity' | 'fulfilment_updated_at' | 'fulfilment_reference'>;

/** PW followed by the sequence's next value, at least 8 digits. */
export async function nextOrderNumber(q: Queryable): Promise<string> {
  const { rows } = await q.query<{ n: string }>("SELECT nextval('order_number_seq')::text AS n");
  return `PW${(rows[0] as { n: string }).n.padStart(8, '0')}`;
}

export async function insertOrder(q: Queryable, order: NewOrder, lines: readonly NewOrderLine[]): Promise<void> {
  await q.query(
    `INSERT INTO orders (order_number, account_no, ship_to_code, ship_to, customer_reference, currency, placed_at,
                         net_amount, tax_amount, freight_amount, total_amount, shipping, placed_by_user_id, erp_state, approval_state, submitted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    [order.order_number, order.account_no, order.ship_to_code, JSON.stringify(order.ship_to), order.customer_reference, order.currency,
      order.placed_at, order.net_amount, order.tax_amount, order.freight_amount, order.total_amount, JSON.stringify(order.shipping),
      order.placed_by_user_id, order.erp_state ?? 'Queued', order.approval_state ?? null, order.submitted_at ?? null],
  );
  await q.query(
    `INSERT INTO order_lines (order_line_id, order_number, line_number, line_type, charge_type, sku, description, quantity, unit_price,
                              line_discount_percent, line_amount, tax_amount, tax_rate_percent, tax_reason, pricing, tax)
     SELECT l.order_line_id, $1, l.line_number, l.line_type, l.charge_type, l.sku, l.description, l.quantity, l.unit_price,
            l.line_discount_percent, l.line_amount, l.tax_amount, l.tax_rate_percent, l.tax_reason, l.pricing, l.tax
       FROM jsonb_to_recordset($2::jsonb) AS l(order_line_id uuid, line_number integer, line_type text, charge_type text, sku text,
            description text, quantity integer, unit_price numeric, line_discount_percent numeric, line_amount numeric, tax_amount numeric,
            tax_rate_percent numeric, tax_reason text, pricing jsonb, tax jsonb)`,
    [order.order_number, JSON.stringify(lines)],
  );
}

/** An instant as RFC 3339 in UTC with milliseconds, whatever the session's time zone. */
const utc = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The order's columns and its lines (by line number) as JSON, decimals as text. */
const ORDER_COLUMNS = `
  o.order_number, o.account_no, o.ship_to_code, o.customer_reference, o.currency,
  ${utc('o.placed_at')} AS placed_at,
  o.net_amount::text AS net_amount, o.tax_amount::text AS tax_amount, o.freight_amount::text AS freight_amount,
  o.total_amount::text AS total_amount, o.shipping, o.erp_state, o.erp_document_no, o.erp_reason, o.erp_attempts,
  o.approval_state, ${utc('o.submitted_at')} AS submitted_at, ${utc('o.decided_at')} AS decided_at, o.decided_reason,
  o.placed_by_user_id::text AS placed_by_user_id, o.decided_by_user_id::text AS decided_by_user_id,
  (SELECT json_build_object('name', u.name, 'email', u.email) FROM users u WHERE u.id = o.placed_by_user_id) AS placed_by,
  (SELECT json_build_object('name', u.name, 'email', u.email) FROM users u WHERE u.id = o.decided_by_user_id) AS decided_by,
  (SELECT json_agg(json_build_object(
            'order_line_id', l.order_line_id, 'line_number', l.line_number, 'line_type', l.line_type, 'charge_type', l.charge_type,
            'sku', l.sku, 'description', l.description, 'quantity', l.quantity, 'unit_price', l.unit_price::text,
            'line_discount_percent', l.line_discount_percent::text, 'line_amount', l.line_amount::text, 'tax_amount', l.tax_amount::text,
            'tax_rate_percent', l.tax_rate_percent::text, 'tax_reason', l.tax_reason, 'pricing', l.pricing, 'tax', l.tax,
            'invoiced_quantity', l.invoiced_quantity, 'shipped_quantity', l.shipped_quantity, 'cancelled_quantity', l.cancelled_quantity,
            'fulfilment_updated_at', ${utc('l.fulfilment_updated_at')}, 'fulfilment_reference', l.fulfilment_reference) ORDER BY l.line_number)
     FROM order_lines l WHERE l.order_number = o.order_number) AS lines`;

export type StoredOrder = OrderRow & { lines: OrderLineRow[] };

/** Which orders a read sees: only those placed (the public API), or also those submitted for approval and not placed (the portal). */
export interface OrderScope { unplaced?: boolean }
const scoped = (scope: OrderScope): string => (scope.unplaced === true ? 'true' : PLACED);

export async function findOrder(q: Queryable, accountNo: string, orderNumber: string, scope: OrderScope = {}): Promise<StoredOrder | undefined> {
  const { rows } = await q.query<StoredOrder>(
    `SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.account_no = $1 AND o.order_number = $2 AND ${scoped(scope)}`,
    [accountNo, orderNumber],
  );
  return rows[0];
}

/** The ship-to as placed, under the interface's names (orders.service.ts writes it). */
export type ShipToSnapshot = Record<string, string | boolean | null>;

/** An order by its number alone, with the ship-to as placed: what the ERP hand-off sends. */
export async function findPlacedOrder(q: Queryable, orderNumber: string): Promise<(StoredOrder & { ship_to: ShipToSnapshot }) | undefined> {
  const { rows } = await q.query<StoredOrder & { ship_to: ShipToSnapshot }>(
    `SELECT ${ORDER_COLUMNS}, o.ship_to FROM orders o WHERE o.order_number = $1`,
    [orderNumber],
  );
  return rows[0];
}

/** A page of the account's orders, newest first, with the account's order count (both in the scope). */
export async function listOrders(q: Queryable, accountNo: string, page: number, pageSize: number, scope: OrderScope = {}): Promise<{ orders: StoredOrder[]; total: number }> {
  const [list, count] = await Promise.all([
    q.query<StoredOrder>(
      `SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.account_no = $1 AND ${scoped(scope)}
        ORDER BY o.placed_at DESC, o.order_number DESC LIMIT $2 OFFSET $3`,
      [accountNo, pageSize, (page - 1) * pageSize],
    ),
    q.query<{ total: number }>(`SELECT count(*)::integer AS total FROM orders o WHERE o.account_no = $1 AND ${scoped(scope)}`, [accountNo]),
  ]);
  return { orders: list.rows, total: (count.rows[0] as { total: number }).total };
}

/** A page of the account's orders awaiting approval, the longest waiting first, and how many there are. */
export async function listAwaitingOrders(q: Queryable, accountNo: string, page: number, pageSize: number): Promise<{ orders: StoredOrder[]; total: number }> {
  const awaiting = "o.account_no = $1 AND o.approval_state = 'AwaitingApproval'";
  const [list, count] = await Promise.all([
    q.query<StoredOrder>(
      `SELECT ${ORDER_COLUMNS} FROM orders o WHERE ${awaiting} ORDER BY o.submitted_at, o.order_number LIMIT $2 OFFSET $3`,
      [accountNo, pageSize, (page - 1) * pageSize],
    ),
    q.query<{ total: number }>(`SELECT count(*)::integer AS total FROM orders o WHERE ${awaiting}`, [accountNo]),
  ]);
  return { orders: list.rows, total: (count.rows[0] as { total: number }).total };
}

export interface StoredRequest { body_hash: Buffer; order_number: string; response: string }

/** How long an Idempotency-Key's answer is replayed. */
const IDEMPOTENCY_WINDOW = "interval '24 hours'";

/**
 * Serialises requests that carry one Idempotency-Key of one account (a transaction-scoped advisory
 * lock), then reads the answer kept for it in the last 24 hours, if any.
 */
export async function claimIdempotencyKey(q: Queryable, accountNo: string, key: string): Promise<StoredRequest | undefined> {
  await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 13))', [JSON.stringify(['order-request', accountNo, key])]);
  const { rows } = await q.query<StoredRequest>(
    `SELECT body_hash, order_number, response FROM order_requests
      WHERE account_no = $1 AND idempotency_key = $2 AND created_at > now() - ${IDEMPOTENCY_WINDOW}`,
    [accountNo, key],
  );
  return rows[0];
}

/** Removes the answers claimIdempotencyKey no longer replays (housekeeping); the number removed. */
export async function deleteExpiredIdempotentAnswers(q: Queryable): Promise<number> {
  return (await q.query(`DELETE FROM order_requests WHERE created_at <= now() - ${IDEMPOTENCY_WINDOW}`)).rowCount ?? 0;
}

/** Keeps the first answer to a key; an expired answer under the same key is replaced. */
export async function storeIdempotentAnswer(q: Queryable, request: { accountNo: string; key: string; bodyHash: Buffer; orderNumber: string; response: string }): Promise<void> {
  await q.query(
    `INSERT INTO order_requests (account_no, idempotency_key, body_hash, order_number, response)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_no, idempotency_key) DO UPDATE
        SET body_hash = EXCLUDED.body_hash, order_number = EXCLUDED.order_number, response = EXCLUDED.response, created_at = now()`,
    [request.accountNo, request.key, request.bodyHash, request.orderNumber, request.response],
  );
}
