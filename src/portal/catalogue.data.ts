import type { Queryable } from '../platform/db/pool.js';
import { brandEntitlement } from '../modules/catalogue/index.js';
import { lookupProducts, type LookupDeps, type LookupValue } from '../modules/lookup/index.js';
import type { Stock } from '../modules/inventory/index.js';
import {
  buildDocuments, orderSizes, referenceData, variantKey, type SearchDocument, type SearchVariant,
} from '../modules/search/index.js';

/**
 * The catalogue pages' reads besides the search and lookup services: which SKUs make the
 * colourways on a page (one statement for the whole page), and a master product's colourways for
 * its product page. Prices and stock always come from the lookup service, in one call per page.
 */

/** The SKUs of each colourway (search document id) of the given master products: one statement. */
export async function skusOfColourways(db: Queryable, masters: readonly string[]): Promise<Map<string, string[]>> {
  const byKey = new Map<string, string[]>();
  if (masters.length === 0) return byKey;
  const { rows } = await db.query<{ sku: string; masterProductNo: string; color: string | null }>(
    `SELECT p.sku, p.master_product_no AS "masterProductNo", p.color FROM products p
      WHERE p.master_product_no = ANY($1::text[])`,
    [[...new Set(masters)]],
  );
  for (const row of rows) {
    const key = variantKey(row);
    if (key === undefined) continue;
    const skus = byKey.get(key);
    if (skus === undefined) byKey.set(key, [row.sku]);
    else skus.push(row.sku);
  }
  return byKey;
}

/** What the account is charged and can have for one SKU (lookup service, quantity 1). */
export interface SkuOffer {
  sku: string;
  size: string | null;
  unitPrice: string | null;
  stock: Stock;
}

/** Every SKU of the list the account may buy, priced for it: one lookup call (unknown, blocked and not entitled are absent). */
export async function offersOf(lookup: LookupDeps, accountNo: string, skus: readonly string[]): Promise<Map<string, SkuOffer>> {
  const offers = new Map<string, SkuOffer>();
  if (skus.length === 0) return offers;
  for (const result of await lookupProducts(lookup, accountNo, 'sku', skus)) {
    const value: LookupValue | null = result.value;
    if (value !== null) offers.set(value.sku, { sku: value.sku, size: value.size, unitPrice: value.unitPrice, stock: value.stock });
  }
  return offers;
}

/** Units that can ship now: on hand less reserved, never below 0. */
export const availableNow = (stock: Stock): number => Math.max(0, stock.onHand - stock.reserved);

/** Compares two exact decimal strings ("12.5000") as numbers; prices have 4 places, so Number is exact enough to order them. */
const byAmount = (a: string, b: string): number => Number(a) - Number(b);

/** A card's price: the lowest and highest unit price of its SKUs for the account (null when none is priced). */
export function priceRange(offers: readonly SkuOffer[]): { min: string; max: string } | null {
  const prices = offers.map((o) => o.unitPrice).filter((p): p is string => p !== null).sort(byAmount);
  if (prices.length === 0) return null;
  return { min: prices[0] as string, max: prices[prices.length - 1] as string };
}

export type Availability = { kind: 'now'; quantity: number } | { kind: 'incoming'; date: string } | { kind: 'none' };

/** A card's availability hint: units available now across sizes, else the first incoming date, else none. */
export function availabilityOf(offers: readonly SkuOffer[]): Availability {
  const now = offers.reduce((sum, o) => sum + availableNow(o.stock), 0);
  if (now > 0) return { kind: 'now', quantity: now };
  const dates = offers.flatMap((o) => o.stock.incoming.filter((i) => i.quantity > 0).map((i) => i.expectedDate)).sort();
  return dates.length > 0 ? { kind: 'incoming', date: dates[0] as string } : { kind: 'none' };
}

/** A master product as its product page shows it: the colourways the account may see, each with its variants. */
export interface ProductView {
  colourways: Array<{ document: SearchDocument; variants: SearchVariant[] }>;
}

const VARIANT_COLUMNS = `p.sku, p.master_product_no AS "masterProductNo", p.name, p.description, p.blocked, p.category, p.size,
  p.color, p.stratification_code AS "stratificationCode", p.gender, p.brand_code AS "brandCode",
  p.style_description AS "styleDescription", p.fabric_composition AS "fabricComposition"`;

/**
 * The colourways of a master product the account may see, as search shows them: the documents
 * the indexer's own `buildDocuments` makes from the product tables, without those with a blocked
 * size and those of a brand the account may not see (the entitlement rule of search and lookup).
 * One statement for the variants, the account's lists and the restricted brands, and the reference
 * data (categories and brand names, two small tables) beside it. Undefined when the account does not exist.
 */
export async function productOf(db: Queryable, accountNo: string, masterProductNo: string): Promise<ProductView | undefined> {
  const [found, reference] = await Promise.all([
    db.query<{ allowed: string | null; indent: string | null; restricted: string[]; variants: SearchVariant[] }>(
      `SELECT a.allowed_brands AS allowed, a.indent_brands AS indent,
              ARRAY(SELECT b.code FROM brands b WHERE b.restricted) AS restricted,
              (SELECT coalesce(json_agg(v), '[]') FROM (SELECT ${VARIANT_COLUMNS} FROM products p WHERE p.master_product_no = $2) v) AS variants
         FROM accounts a WHERE a.account_no = $1`,
      [accountNo, masterProductNo],
    ),
    referenceData(db),
  ]);
  const row = found.rows[0];
  if (row === undefined) return undefined;
  const mayBuy = brandEntitlement({ allowedBrands: row.allowed, indentBrands: row.indent }, new Set(row.restricted));
  const documents = buildDocuments(row.variants, reference.categories, reference.brandNames);
  const colourways = [...documents.values()]
    .filter((d) => !d.Blocked && mayBuy(d.BrandCode))
    .sort((a, b) => (a.Colour < b.Colour ? -1 : a.Colour > b.Colour ? 1 : 0))
    .map((document) => {
      const variants = row.variants.filter((v) => variantKey(v) === document.id);
      const order = orderSizes(variants.map((v) => v.size ?? ''));
      variants.sort((a, b) => order.indexOf(a.size ?? '') - order.indexOf(b.size ?? '') || (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
      return { document, variants };
    });
  return { colourways };
}
