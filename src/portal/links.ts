import type { Filter, SkuColourway } from '../modules/search/index.js';

/**
 * The addresses pages link to each other by: a colourway's product page, and the search page
 * filtered to one value (a breadcrumb's category, a product's brand).
 */

/** The URL of a colourway's product page. */
export const productUrl = (masterProductNo: string, colour: string): string =>
  `/products/${encodeURIComponent(masterProductNo)}?colour=${encodeURIComponent(colour)}`;

/**
 * The search page listing what has this value of a filter, as ticking the facet makes it: a
 * category name lists the products of that category and every category below it (a document's
 * `Category` holds the names of its whole path).
 */
export const filteredSearchUrl = (filter: Filter, value: string): string => `/?${new URLSearchParams([[filter, value]]).toString()}`;

/** A basket or order line's product page, or null when the account can no longer open it (gone, hidden, no colourway). */
export function lineHref(sku: string, colourways: ReadonlyMap<string, SkuColourway>): string | null {
  const colourway = colourways.get(sku);
  return colourway === undefined ? null : productUrl(colourway.masterProductNo, colourway.colour);
}
