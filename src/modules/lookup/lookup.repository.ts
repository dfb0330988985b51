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
  /** Whether the product's brand is restricted; false when it has no brand row. */
  brand_restricted: boolean;
  /** Its stock document (src/modules/inventory/stock.ts) as stored; null when no inventory was ever pushed. */
  stock_json: string | null;
}

/**
 * A product with its brand's restricted flag and its stock document, one row per product: the
 * stock was rendered when the inventory was written, so nothing is aggregated here.
 */
const PRODUCT_SELECT = `
  SELECT p.sku, p.ean, p.master_product_no, p.name, p.size, p.color, p.unit_price, p.blocked, p.brand_code,
         p.item_discount_group, coalesce(b.restricted, false) AS brand_restricted, i.stock_json
    FROM products p
    LEFT JOIN brands b ON b.code = p.brand_code
    LEFT JOIN inventory_items i ON i.sku = p.sku`;

export async function findProductsBySku(q: Queryable, skus: readonly string[]): Promise<LookupProductRow[]> {
  return (await q.query<LookupProductRow>({ name: 'lookup-products-by-sku', text: `${PRODUCT_SELECT} WHERE p.sku = ANY($1::text[])`, values: [skus] })).rows;
}

/** Several variants may share an EAN (a feed error); they come back in SKU order so the choice is stable. */
export async function findProductsByEan(q: Queryable, eans: readonly string[]): Promise<LookupProductRow[]> {
  return (await q.query<LookupProductRow>({ name: 'lookup-products-by-ean', text: `${PRODUCT_SELECT} WHERE p.ean = ANY($1::text[]) ORDER BY p.ean, p.sku`, values: [eans] })).rows;
}

export interface LookupAccountRow {
  account_no: string;
  price_mode: string | null;
  price_group: string | null;
  disc_group: string | null;
  allowed_brands: string | null;
  indent_brands: string | null;
  /** The version of price_rules (migration 1764000000400), read in the same statement. */
  rules_version: string;
}

export async function findLookupAccount(q: Queryable, accountNo: string): Promise<LookupAccountRow | undefined> {
  return (await q.query<LookupAccountRow>({
    name: 'lookup-account',
    text: `SELECT account_no, price_mode, price_group, disc_group, allowed_brands, indent_brands,
                  (SELECT version FROM price_rules_state) AS rules_version
             FROM accounts WHERE account_no = $1`,
    values: [accountNo],
  })).rows[0];
}
