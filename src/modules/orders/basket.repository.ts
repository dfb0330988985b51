import type { Queryable } from '../../platform/db/pool.js';

/**
 * Everything a basket is priced from that hangs off the account: the account, the ship-to named,
 * and the products of the basket's SKUs with their brand and stock, in one statement. Decimals are
 * read as text so that no amount passes through a binary float.
 */

export interface BasketAccount {
  account_no: string;
  name: string;
  status: string;
  price_mode: string | null;
  price_group: string | null;
  disc_group: string | null;
  allowed_brands: string | null;
  indent_brands: string | null;
  tax_liable: boolean | null;
  tax_area_code: string | null;
  gst_business_posting_group: string | null;
  /** The version of price_rules, read in the same statement (rule-cache.ts). */
  rules_version: string;
  /** The version of the freight and tax reference data, read in the same statement (reference-cache.ts). */
  reference_version: string;
}

export interface BasketShipTo {
  ship_to_code: string;
  ship_to_name: string | null;
  ship_to_address1: string | null;
  ship_to_address2: string | null;
  ship_to_post_code: string | null;
  ship_to_city: string | null;
  ship_to_state: string | null;
  ship_to_country_region_code: string | null;
  tax_liable: boolean | null;
  tax_area_code: string | null;
  is_first_nations: boolean | null;
}

export interface BasketProduct {
  sku: string;
  name: string | null;
  master_product_no: string | null;
  item_discount_group: string | null;
  unit_price: string | null;
  blocked: boolean | null;
  brand_code: string | null;
  brand_restricted: boolean;
  weight: string | null;
  length: string | null;
  width: string | null;
  height: string | null;
  tax_group_code: string | null;
  gst_product_posting_group: string | null;
  /** The SKU's stock in the API form (inventory/stock.ts), null when no inventory was pushed. */
  stock_json: string | null;
}

export interface BasketRows {
  account: BasketAccount | undefined;
  shipTo: BasketShipTo | undefined;
  products: Map<string, BasketProduct>;
}

/**
 * One statement: the account and the ship-to as JSON on the first row (null when absent), then one
 * row per product found, its columns as plain values. Products as rows, not a JSON array: building
 * and parsing ~20 KB of JSON (each stock text escaped inside it) cost more than both on either side.
 */
const BASKET_SELECT = {
  name: 'orders-basket-v3',
  text: `
  SELECT CASE WHEN row_number() OVER () = 1 THEN a.account END AS account,
         CASE WHEN row_number() OVER () = 1 THEN s.ship_to END AS ship_to,
         p.sku, p.name, p.master_product_no, p.item_discount_group, p.unit_price::text AS unit_price,
         p.blocked, p.brand_code, coalesce(b.restricted, false) AS brand_restricted,
         p.weight::text AS weight, p.length::text AS length, p.width::text AS width, p.height::text AS height,
         p.tax_group_code, p.gst_product_posting_group, i.stock_json
    FROM (SELECT (SELECT row_to_json(x)::text FROM (
                    SELECT account_no, name, status, price_mode, price_group, disc_group, allowed_brands, indent_brands,
                           tax_liable, tax_area_code, gst_business_posting_group,
                           (SELECT version::text FROM price_rules_state) AS rules_version,
                           (SELECT version::text FROM reference_data_state) AS reference_version
                      FROM accounts WHERE account_no = $1) x) AS account) a
   CROSS JOIN (SELECT (SELECT row_to_json(x)::text FROM (
                    SELECT ship_to_code, ship_to_name, ship_to_address1, ship_to_address2, ship_to_post_code, ship_to_city,
                           ship_to_state, ship_to_country_region_code, tax_liable, tax_area_code, is_first_nations
                      FROM ship_tos WHERE account_no = $1 AND ship_to_code = $2) x) AS ship_to) s
    LEFT JOIN (products p
               LEFT JOIN brands b ON b.code = p.brand_code
               LEFT JOIN inventory_items i ON i.sku = p.sku) ON p.sku = ANY($3::text[])`,
};

type PricingRow = Omit<BasketProduct, 'sku' | 'brand_restricted'> & {
  account: string | null; ship_to: string | null; sku: string | null; brand_restricted: boolean | null;
};

/** What a quote prices the SKUs from for the account and ship-to (the portal's stored basket is the baskets module's `findBasket`). */
export async function findPricingRows(q: Queryable, accountNo: string, shipToCode: string, skus: readonly string[]): Promise<BasketRows> {
  const { rows } = await q.query<PricingRow>({ ...BASKET_SELECT, values: [accountNo, shipToCode, [...new Set(skus)]] });
  const first = rows[0] as PricingRow;
  const products = new Map<string, BasketProduct>();
  for (const row of rows) {
    if (row.sku === null) continue;
    products.set(row.sku, {
      sku: row.sku, name: row.name, master_product_no: row.master_product_no, item_discount_group: row.item_discount_group,
      unit_price: row.unit_price, blocked: row.blocked, brand_code: row.brand_code, brand_restricted: row.brand_restricted === true,
      weight: row.weight, length: row.length, width: row.width, height: row.height, tax_group_code: row.tax_group_code,
      gst_product_posting_group: row.gst_product_posting_group, stock_json: row.stock_json,
    });
  }
  return {
    account: first.account === null ? undefined : JSON.parse(first.account) as BasketAccount,
    shipTo: first.ship_to === null ? undefined : JSON.parse(first.ship_to) as BasketShipTo,
    products,
  };
}
