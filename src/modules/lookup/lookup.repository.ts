import type { Queryable } from '../../platform/db/pool.js';

/**
 * The lookup's read: one statement per call, whatever the number of keys, for the account and
 * every product asked for.
 */

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
  /** Its stock as stored (`encodeStock` in src/modules/inventory/stock.ts); null when no inventory was ever pushed. */
  stock_json: string | null;
}

export interface LookupBatch {
  /** Undefined when the account does not exist. */
  account: LookupAccountRow | undefined;
  products: LookupProductRow[];
}

/**
 * The account (as JSON text, with the price rules' version) outer-joined to the products asked
 * for, each with its brand's restricted flag and its stock document: no account, no row; an
 * account and no product, one row with the product columns null. The account text is sent on one
 * row only; the stock was encoded when the inventory was written, so nothing is aggregated here.
 */
const BATCH_SELECT = `
  SELECT CASE WHEN row_number() OVER () = 1 THEN a.account END AS account, p.sku, p.ean, p.master_product_no, p.name, p.size, p.color, p.unit_price, p.blocked, p.brand_code,
         p.item_discount_group, coalesce(b.restricted, false) AS brand_restricted, i.stock_json
    FROM (SELECT row_to_json(x)::text AS account
            FROM (SELECT account_no, price_mode, price_group, disc_group, allowed_brands, indent_brands,
                         (SELECT version::text FROM price_rules_state) AS rules_version
                    FROM accounts WHERE account_no = $1) x) a
    LEFT JOIN (products p
               LEFT JOIN brands b ON b.code = p.brand_code
               LEFT JOIN inventory_items i ON i.sku = p.sku)`;

const BY_KIND = {
  sku: { name: 'lookup-batch-by-sku', text: `${BATCH_SELECT} ON p.sku = ANY($2::text[])` },
  // Several variants may share an EAN (a feed error); they come back in SKU order so the choice is stable.
  ean: { name: 'lookup-batch-by-ean', text: `${BATCH_SELECT} ON p.ean = ANY($2::text[]) ORDER BY p.ean, p.sku` },
} as const;

export async function findLookupBatch(q: Queryable, accountNo: string, kind: 'sku' | 'ean', keys: readonly string[]): Promise<LookupBatch> {
  const { rows } = await q.query<LookupProductRow & { account: string | null }>({ ...BY_KIND[kind], values: [accountNo, keys] });
  // The one row with the account is not necessarily the first once sorted (by EAN).
  const account = rows.find((row) => row.account !== null)?.account;
  if (account === undefined || account === null) return { account: undefined, products: [] };
  return {
    account: JSON.parse(account) as LookupAccountRow,
    products: rows[0]?.sku === null ? [] : rows,
  };
}
