import type { Queryable } from '../../platform/db/pool.js';

/** SQL for the portal's baskets: one per user and account, lines per SKU in the order first added. */

export interface BasketOwner {
  readonly userId: string;
  readonly accountNo: string;
}

export interface BasketRow {
  ship_to_code: string | null;
  customer_reference: string | null;
  version: string;
}

export interface BasketLineRow {
  sku: string;
  quantity: number;
}

/**
 * The basket's checkout choices and version with its lines, or undefined when the owner has none
 * yet: one statement, so the lines are the version's (two reads could see a version and the lines
 * of the next one, committed in between).
 */
export async function findBasket(db: Queryable, owner: BasketOwner): Promise<{ row: BasketRow; lines: BasketLineRow[] } | undefined> {
  const { rows } = await db.query<BasketRow & { sku: string | null; quantity: number | null }>(
    `SELECT b.ship_to_code, b.customer_reference, b.version::text, l.sku, l.quantity
     FROM baskets b LEFT JOIN basket_lines l USING (user_id, account_no)
     WHERE b.user_id = $1 AND b.account_no = $2
     ORDER BY l.position`,
    [owner.userId, owner.accountNo],
  );
  const first = rows[0];
  if (first === undefined) return undefined;
  const row = { ship_to_code: first.ship_to_code, customer_reference: first.customer_reference, version: first.version };
  const lines = rows.flatMap((r) => (r.sku === null || r.quantity === null ? [] : [{ sku: r.sku, quantity: r.quantity }]));
  return { row, lines };
}

export async function findBasketLines(db: Queryable, owner: BasketOwner): Promise<BasketLineRow[]> {
  const { rows } = await db.query<BasketLineRow>(
    'SELECT sku, quantity FROM basket_lines WHERE user_id = $1 AND account_no = $2 ORDER BY position',
    [owner.userId, owner.accountNo],
  );
  return rows;
}

/** How many lines the basket holds: a count over the primary key of its lines (at most MAX_BASKET_LINES), for the navigation of every page. */
export async function countLines(db: Queryable, owner: BasketOwner): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::integer AS n FROM basket_lines WHERE user_id = $1 AND account_no = $2',
    [owner.userId, owner.accountNo],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Creates the basket if needed and raises its version, locking it for the caller's transaction:
 * every change to one basket is serialised here, so two tabs adding at once both count.
 */
export async function lockBasket(db: Queryable, owner: BasketOwner): Promise<BasketRow> {
  const { rows } = await db.query<BasketRow>(
    `INSERT INTO baskets (user_id, account_no) VALUES ($1, $2)
     ON CONFLICT (user_id, account_no) DO UPDATE SET version = baskets.version + 1, updated_at = now()
     RETURNING ship_to_code, customer_reference, version::text`,
    [owner.userId, owner.accountNo],
  );
  return rows[0] as BasketRow;
}

/**
 * Locks the basket for the caller's transaction only if it is still at `version`, without raising
 * it: true when it is (nothing changed it since), false when it changed or does not exist.
 */
export async function lockBasketAtVersion(db: Queryable, owner: BasketOwner, version: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM baskets WHERE user_id = $1 AND account_no = $2 AND version = $3::bigint FOR UPDATE',
    [owner.userId, owner.accountNo, version],
  );
  return rows.length > 0;
}

/** Sets each SKU's quantity (adding lines not there yet, at the end, in the order given). */
export async function writeBasketLines(db: Queryable, owner: BasketOwner, lines: readonly BasketLineRow[]): Promise<void> {
  if (lines.length === 0) return;
  await db.query(
    `INSERT INTO basket_lines (user_id, account_no, sku, quantity)
     SELECT $1, $2, l.sku, l.quantity FROM unnest($3::text[], $4::int[]) WITH ORDINALITY AS l(sku, quantity, n) ORDER BY l.n
     ON CONFLICT (user_id, account_no, sku) DO UPDATE SET quantity = EXCLUDED.quantity`,
    [owner.userId, owner.accountNo, lines.map((l) => l.sku), lines.map((l) => l.quantity)],
  );
}

export async function deleteBasketLines(db: Queryable, owner: BasketOwner, skus: readonly string[] | 'all'): Promise<void> {
  if (skus === 'all') {
    await db.query('DELETE FROM basket_lines WHERE user_id = $1 AND account_no = $2', [owner.userId, owner.accountNo]);
  } else if (skus.length > 0) {
    await db.query('DELETE FROM basket_lines WHERE user_id = $1 AND account_no = $2 AND sku = ANY($3::text[])', [owner.userId, owner.accountNo, skus]);
  }
}

export async function writeCheckout(db: Queryable, owner: BasketOwner, shipToCode: string | null, customerReference: string | null): Promise<void> {
  await db.query(
    'UPDATE baskets SET ship_to_code = $3, customer_reference = $4 WHERE user_id = $1 AND account_no = $2',
    [owner.userId, owner.accountNo, shipToCode, customerReference],
  );
}
