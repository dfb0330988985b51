import type { Pool } from '../../platform/db/pool.js';
import { AppError, errors } from '../../platform/http/problem.js';
import { brandEntitlement } from '../catalogue/entitlement.js';
import { NO_STOCK, decodeStock, type Stock } from '../inventory/stock.js';
import { netUnitPrice, type PricingAccount, type PricingProduct } from '../pricing/pricing.engine.js';
import type { PriceRuleCache } from '../pricing/rule-cache.js';
import { eanProblem } from './ean.js';
import {
  findLookupBatch, type LookupAccountRow, type LookupProductRow,
} from './lookup.repository.js';
import { MAX_LOOKUP_KEYS, type LookupResult } from './lookup.schemas.js';

export type LookupKind = 'sku' | 'ean';

export interface LookupDeps {
  pool: Pool;
  /** ISO 4217 of every price (SITE_CURRENCY). */
  currency: string;
  /** Every price rule, checked against the version read with the account on each call. */
  rules: PriceRuleCache;
  now?: () => Date;
}

const FIELD: Record<LookupKind, 'skus' | 'eans'> = { sku: 'skus', ean: 'eans' };

/**
 * The request's keys, or a 400 naming every bad one: 0 or more than 100 keys, a key that is not a
 * non-empty string, and (by EAN) a code that is not 8 or 13 digits with a correct GS1 check digit.
 */
export function parseLookupKeys(body: unknown, kind: LookupKind): string[] {
  const field = FIELD[kind];
  const list = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list)) {
    throw errors.badRequest(`The body must be {"${field}": [...]}.`, [{ path: `/${field}`, message: 'must be an array' }]);
  }
  if (list.length === 0 || list.length > MAX_LOOKUP_KEYS) {
    throw errors.badRequest(`Send 1 to ${MAX_LOOKUP_KEYS} ${field}; got ${list.length}.`, [
      { path: `/${field}`, message: `must hold 1 to ${MAX_LOOKUP_KEYS} keys` },
    ]);
  }
  const problems: Array<{ path: string; message: string }> = [];
  list.forEach((key, i) => {
    const path = `/${field}/${i}`;
    if (typeof key !== 'string') problems.push({ path, message: 'must be a string' });
    else if (key === '') problems.push({ path, message: 'must not be empty' });
    else if (kind === 'ean') {
      const problem = eanProblem(key);
      if (problem) problems.push({ path, message: `"${key}" ${problem}` });
    }
  });
  if (problems.length > 0) {
    const what = kind === 'ean' ? 'EAN' : 'SKU';
    throw errors.badRequest(`${problems.length} ${what}${problems.length === 1 ? ' is' : 's are'} invalid: ${problems.map((p) => p.path).join(', ')}.`, problems);
  }
  return list as string[];
}

/** "Strings that were never sent are null, never an empty string." */
const text = (value: string | null): string | null => (value === null || value === '' ? null : value);

/** The stored stock document (written by the inventory writer from the same snapshot), or no stock. */
const stockOfRow = (p: LookupProductRow): Stock => (p.stock_json === null ? NO_STOCK : decodeStock(p.stock_json));

const pricingAccount = (a: LookupAccountRow): PricingAccount => ({
  accountNo: a.account_no, priceMode: a.price_mode, priceGroup: a.price_group, discGroup: a.disc_group,
});
const pricingProduct = (p: LookupProductRow): PricingProduct => ({
  sku: p.sku, masterProductNo: p.master_product_no, itemDiscountGroup: p.item_discount_group, unitPrice: p.unit_price,
});

/** Quantity 1: the lookup's price is the price of one unit (interface, "Public lookup result"). */
const LOOKUP_QUANTITY = 1;

/**
 * Resolves a batch for one account: one result per requested key, in request order, duplicates
 * repeated. A key is `found: false` when unknown, when the product is blocked, and when the account
 * may not buy its brand (it is not visible to that account). One query whatever the number of keys
 * reads the account (with the price rules' version) and the products (with their brand's flag and
 * stock); the rules come from the in-memory rule set, reloaded first (one more query) only when the
 * version shows they changed.
 */
export async function lookupProducts(deps: LookupDeps, accountNo: string, kind: LookupKind, keys: readonly string[]): Promise<LookupResult[]> {
  const { account, products } = await findLookupBatch(deps.pool, accountNo, kind, [...new Set(keys)]);
  if (!account) throw new AppError('not-found', 404, 'Not found', `Customer ${accountNo} does not exist.`);

  const restricted = new Set(products.filter((p) => p.brand_restricted && p.brand_code !== null).map((p) => p.brand_code as string));
  const mayBuy = brandEntitlement({ allowedBrands: account.allowed_brands, indentBrands: account.indent_brands }, restricted);
  // By EAN the first visible variant (in SKU order) answers for a code.
  const byKey = new Map<string, LookupProductRow>();
  for (const p of products) {
    if (p.blocked === true || !mayBuy(p.brand_code)) continue;
    const key = kind === 'sku' ? p.sku : (p.ean as string);
    if (!byKey.has(key)) byKey.set(key, p);
  }
  const pricing = pricingAccount(account);
  const at = (deps.now ?? (() => new Date()))();
  const candidates = (await deps.rules.atLeast(account.rules_version)).index.forAccount(pricing);

  const values = new Map<string, LookupResult>();
  for (const [key, p] of byKey) {
    const product = pricingProduct(p);
    const price = netUnitPrice({ product, account: pricing, rules: candidates(product), at, quantity: LOOKUP_QUANTITY });
    values.set(key, {
      key,
      found: true,
      value: {
        currency: deps.currency,
        ean: text(p.ean),
        sku: p.sku,
        masterProductNo: text(p.master_product_no) ?? p.sku,
        name: text(p.name),
        size: text(p.size),
        color: text(p.color),
        unitPrice: price.unitPrice,
        stock: stockOfRow(p),
      },
    });
  }
  return keys.map((key) => values.get(key) ?? { key, found: false, value: null });
}
