import { lookupProducts, type LookupDeps, type LookupValue } from '../modules/lookup/index.js';
import type { Stock } from '../modules/inventory/index.js';

/**
 * What the catalogue pages show of a SKU for the signed-in account: the lookup service's answer, in
 * one call per page. Which SKUs make a page's colourways comes from the search service
 * (`colourwaySkus`, `productColourways`).
 */

/** What the account is charged and can have for one SKU (lookup service, quantity 1). */
export interface SkuOffer {
  sku: string;
  ean: string | null;
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
    if (value !== null) offers.set(value.sku, { sku: value.sku, ean: value.ean, size: value.size, unitPrice: value.unitPrice, stock: value.stock });
  }
  return offers;
}
