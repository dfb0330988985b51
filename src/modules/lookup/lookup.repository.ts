import type { Queryable } from '../../platform/db/pool.js';

/**
 * The lookup's reads: each takes the whole batch of keys, so a call costs the same few queries
 * whether it asks for 1 key or 100.
 */

export interface LookupProductRow {
  sku: string;
  ean: string | null;
  master_product_no: string | null;
  name: string | null;
  size: string | null;
  color: string | null;
  unit_price: string | null;
  blocked: boolean | null;
  brand_code: string | null;
  item_discount_group: string | null;
}

const PRODUCT_COLUMNS = 'sku, ean, master_product_no, name, size, color, unit_price, blocked, brand_code, item_discount_group';

export async function findProductsBySku(q: Queryable, skus: readonly string[]): Promise<LookupProductRow[]> {
  return (await q.query<LookupProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE sku = ANY($1::text[])`, [skus])).rows;
}

/** Several variants may share an EAN (a feed error); they come back in SKU order so the choice is stable. */
export async function findProductsByEan(q: Queryable, eans: readonly string[]): Promise<LookupProductRow[]> {
  return (await q.query<LookupProductRow>(
    `SELECT ${PRODUCT_COLUMNS} FROM products WHERE ean = ANY($1::text[]) ORDER BY ean, sku`, [eans],
  )).rows;
}

export interface LookupAccountRow {
  account_no: string;
  price_mode: string | null;
  price_group: string | null;
  disc_group: string | null;
  allowed_brands: string | null;
  indent_brands: string | null;
}

export async function findLookupAccount(q: Queryable, accountNo: string): Promise<LookupAccountRow | undefined> {
  return (await q.query<LookupAccountRow>(
    'SELECT account_no, price_mode, price_group, disc_group, allowed_brands, indent_brands FROM accounts WHERE account_no = $1',
    [accountNo],
  )).rows[0];
}

export async function findRestrictedBrands(q: Queryable, codes: readonly string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const { rows } = await q.query<{ code: string }>('SELECT code FROM brands WHERE restricted AND code = ANY($1::text[])', [codes]);
  return new Set(rows.map((r) => r.code));
}

export interface StockRow {
  sku: string;
  location_code: string;
  on_hand: number;
  reserved: number;
  incoming: Array<{ quantity: number; expectedDate: string }>;
}

export async function findStock(q: Queryable, skus: readonly string[]): Promise<StockRow[]> {
  if (skus.length === 0) return [];
  return (await q.query<StockRow>(
    'SELECT sku, location_code, on_hand, reserved, incoming FROM inventory_locations WHERE sku = ANY($1::text[]) ORDER BY sku, location_code',
    [skus],
  )).rows;
}
