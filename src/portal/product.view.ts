import { availableNow } from '../modules/inventory/index.js';
import { documentKey, type ProductColourways } from '../modules/search/index.js';
import type { SkuOffer } from './catalogue.offers.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import { galleryOf, type Picture } from './pictures.js';
import type { FieldError } from './render.js';

/** The product page's view model. */

type Colourway = ProductColourways['colourways'][number];

/** The URL of a colourway's product page. */
export const productUrl = (masterProductNo: string, colour: string): string =>
  `/products/${encodeURIComponent(masterProductNo)}?colour=${encodeURIComponent(colour)}`;

/** The colourway asked for (none: the first the account may see), or undefined when the account may see no such colour. */
export function chosenColourway(product: ProductColourways | undefined, masterProductNo: string, colour: string | undefined): Colourway | undefined {
  if (product === undefined || product.colourways.length === 0) return undefined;
  const wanted = colour === undefined || colour.trim() === '' ? undefined : documentKey(masterProductNo, colour.trim());
  return wanted === undefined ? product.colourways[0] : product.colourways.find((c) => c.document.id === wanted);
}

/** One size of the grid: a SKU the account may buy, with its net price and stock. */
export interface GridRow {
  id: string;
  sku: string;
  size: string;
  price: string;
  priced: boolean;
  available: string;
  incoming: string[];
}

function gridRows(chosen: Colourway, offers: ReadonlyMap<string, SkuOffer>, currency: string): GridRow[] {
  return chosen.variants.flatMap((variant) => {
    const offer = offers.get(variant.sku);
    if (offer === undefined) return [];
    return [{
      sku: variant.sku,
      size: variant.size ?? 'One size',
      price: formatMoney(offer.unitPrice, currency),
      priced: offer.unitPrice !== null,
      available: formatQuantity(availableNow(offer.stock)),
      incoming: offer.stock.incoming.filter((i) => i.quantity > 0)
        .map((i) => `${formatQuantity(i.quantity)} on ${formatDate(i.expectedDate)}`),
    }];
  }).map((row, i) => ({ ...row, id: `qty-${i}` }));
}

/** A size with a quantity, as the grid's form posted it (product.form.ts). */
export interface GridLine { sku: string; quantity: number; id: string; size: string }

/** What the product page shows of one colourway. */
export interface ProductPage {
  doc: Colourway['document'];
  /** The colourway's pictures, the first shown large; none: a placeholder. */
  pictures: Picture[];
  rows: GridRow[];
  colours: Array<{ colour: string; href: string; current: boolean }>;
  action: string;
  name: string;
}

export function productPage(
  product: ProductColourways, chosen: Colourway, offers: ReadonlyMap<string, SkuOffer>, currency: string, masterProductNo: string,
): ProductPage {
  const doc = chosen.document;
  const name = doc.Description ?? doc.ProductNo;
  return {
    doc,
    pictures: galleryOf(doc.images, name, doc.Colour),
    rows: gridRows(chosen, offers, currency),
    colours: product.colourways.map((c) => ({ colour: c.document.Colour, href: productUrl(masterProductNo, c.document.Colour), current: c === chosen })),
    action: productUrl(masterProductNo, doc.Colour),
    name,
  };
}

/** The basket's refusal of the grid's lines, each on the size it names (`basketChangeProblems`). */
export function refusedSizes(problems: ReadonlyArray<{ line?: number; message: string }>, lines: readonly GridLine[]): FieldError[] {
  return problems.map(({ line: index, message }) => {
    const line = index === undefined ? undefined : lines[index];
    return { field: line?.id ?? lines[0]?.id ?? 'sizes', message: line ? `Size ${line.size}: ${message}` : `Your basket cannot take these sizes: ${message}` };
  });
}

/** The message on the page the grid's form redirects to. */
export function addedMessage(page: ProductPage, lines: readonly GridLine[]): string {
  const what = lines.map((l) => `${formatQuantity(l.quantity)} × ${l.size}`).join(', ');
  return `Added to your basket: ${page.name}, ${page.doc.Colour}: ${what}.`;
}
