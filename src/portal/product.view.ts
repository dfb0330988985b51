import { availableNow } from '../modules/inventory/index.js';
import { documentKey, orderSizes, type ProductColourways } from '../modules/search/index.js';
import type { SkuOffer } from './catalogue.offers.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import { filteredSearchUrl, productUrl } from './links.js';
import { galleryOf, type Picture } from './pictures.js';
import type { FieldError } from './render.js';

/** The product page's view model: the style's header for one colourway, and the colour × size grid of every colourway. */

type Colourway = ProductColourways['colourways'][number];


/** The colourway asked for (none: the first the account may see), or undefined when the account may see no such colour. */
export function chosenColourway(product: ProductColourways | undefined, masterProductNo: string, colour: string | undefined): Colourway | undefined {
  if (product === undefined || product.colourways.length === 0) return undefined;
  const wanted = colour === undefined || colour.trim() === '' ? undefined : documentKey(masterProductNo, colour.trim());
  return wanted === undefined ? product.colourways[0] : product.colourways.find((c) => c.document.id === wanted);
}

/** The column of a variant without a size. */
const ONE_SIZE = 'One size';

/** One SKU the account may buy, in its cell of the grid: its quantity box, its price where the row's is not its own, its stock. */
export interface GridItem {
  /** The quantity box's id, `qty-<row>-<column>` (a second SKU of the same colour and size: `-<n>` after it). */
  id: string;
  sku: string;
  ean: string | null;
  colour: string;
  size: string;
  /** The quantity box's accessible name, "Quantity of Black, size M", and the start of its error messages. */
  label: string;
  /** The net unit price ("AUD 38.25 each", "No price"), shown only where it differs from the row's price. */
  price: string | undefined;
  available: string;
  incoming: string[];
}

/** One size of one colour: no item is a colour not made (or not for this account) in that size. */
export interface GridCell {
  size: string;
  /** The size as a phone shows it above the cell, where the column's heading is out of sight: "Size M", "One size". */
  label: string;
  items: GridItem[];
  /** What an empty cell says to screen readers: "No Red in size S". */
  absent: string;
}

/** One colour of the grid: its price once (the price most of its sizes have), and a cell per size column. */
export interface GridRow {
  id: string;
  colour: string;
  /** "AUD 36.00 each", or "No price". */
  price: string;
  /** The colour the page was asked for (`?colour=`), highlighted. */
  current: boolean;
  cells: GridCell[];
}

/** The colour × size grid: columns in the catalogue's size order, rows by colour; only sizes and colours with something to buy. */
export interface Grid {
  sizes: string[];
  rows: GridRow[];
  /** Every item, row by row: what the form reads. */
  items: GridItem[];
}

const sizeOf = (variant: { size: string | null }): string => variant.size ?? ONE_SIZE;
const each = (unitPrice: string | null, currency: string): string => (unitPrice === null ? formatMoney(null, currency) : `${formatMoney(unitPrice, currency)} each`);

/**
 * The price a row states once: the unit price most of its items have (on a tie the lowest, no price
 * last), so a row where one size costs more shows that size's price alone.
 */
function rowPrice(prices: ReadonlyArray<string | null>): string | null {
  const counts = new Map<string | null, number>();
  for (const price of prices) counts.set(price, (counts.get(price) ?? 0) + 1);
  const rank = (price: string | null) => (price === null ? Number.POSITIVE_INFINITY : Number(price));
  return [...counts].sort((a, b) => b[1] - a[1] || rank(a[0]) - rank(b[0]))[0]?.[0] ?? null;
}

interface Offered { colourway: Colourway; offers: SkuOffer[] }

function gridOf(offered: readonly Offered[], chosen: Colourway, currency: string): Grid {
  const sizes = orderSizes(offered.flatMap(({ offers }) => offers.map(sizeOf)));
  const items: GridItem[] = [];
  const rows = offered.map(({ colourway, offers }, r): GridRow => {
    const colour = colourway.document.Colour;
    const price = rowPrice(offers.map((o) => o.unitPrice));
    const cells = sizes.map((size, c): GridCell => {
      const here = offers.filter((o) => sizeOf(o) === size);
      const named = size === ONE_SIZE ? `Quantity of ${colour}` : `Quantity of ${colour}, size ${size}`;
      return {
        size,
        label: size === ONE_SIZE ? ONE_SIZE : `Size ${size}`,
        absent: size === ONE_SIZE ? `No ${colour} in one size` : `No ${colour} in size ${size}`,
        items: here.map((offer, n) => ({
          id: n === 0 ? `qty-${r}-${c}` : `qty-${r}-${c}-${n}`,
          sku: offer.sku,
          ean: offer.ean,
          colour,
          size,
          label: here.length > 1 ? `${named} (SKU ${offer.sku})` : named,
          price: offer.unitPrice === price ? undefined : each(offer.unitPrice, currency),
          available: formatQuantity(availableNow(offer.stock)),
          incoming: offer.stock.incoming.filter((i) => i.quantity > 0).map((i) => `${formatQuantity(i.quantity)} on ${formatDate(i.expectedDate)}`),
        })),
      };
    });
    items.push(...cells.flatMap((cell) => cell.items));
    return { id: `colour-${r}`, colour, price: each(price, currency), current: colourway === chosen, cells };
  });
  return { sizes, rows, items };
}

/** A size with a quantity, as the grid's form posted it (product.form.ts). */
export interface GridLine { sku: string; quantity: number; id: string; colour: string; size: string }

/** What the product page shows: the chosen colourway's header, its other colours, and the grid of every colourway. */
export interface ProductPage {
  doc: Colourway['document'];
  /** The colourway's pictures, the first shown large; none: a placeholder. */
  pictures: Picture[];
  grid: Grid;
  colours: Array<{ colour: string; href: string; current: boolean }>;
  action: string;
  name: string;
  /** Search, then each level of the category path, each listing its products; the page itself last (no link). */
  breadcrumbs: Crumb[];
  /** The search page listing the brand's products; null without a brand. */
  brandHref: string | null;
}

export interface Crumb { text: string; href: string }

/**
 * The trail above the product's name: the search page, then each name of its category path, root
 * first, linked to the search page filtered to it (which lists that category and those below).
 */
export function breadcrumbsOf(doc: Colourway['document']): Crumb[] {
  return [
    { text: 'Search', href: '/' },
    ...doc.Category.map((name) => ({ text: name, href: filteredSearchUrl('category', name) })),
  ];
}

/**
 * The page from the account's colourways of the style and what the lookup service answered for
 * their SKUs. A variant the lookup did not answer for is left out, and with it a colour or size
 * left with nothing to buy.
 */
export function productPage(
  product: ProductColourways, chosen: Colourway, offers: ReadonlyMap<string, SkuOffer>, currency: string, masterProductNo: string,
): ProductPage {
  const doc = chosen.document;
  const offered = product.colourways
    .map((colourway) => ({ colourway, offers: colourway.variants.flatMap((v) => offers.get(v.sku) ?? []) }))
    .filter((o) => o.offers.length > 0);
  const name = doc.Description ?? doc.ProductNo;
  return {
    doc,
    pictures: galleryOf(doc.images, name, doc.Colour),
    grid: gridOf(offered, chosen, currency),
    colours: product.colourways.map((c) => ({ colour: c.document.Colour, href: productUrl(masterProductNo, c.document.Colour), current: c === chosen })),
    action: productUrl(masterProductNo, doc.Colour),
    breadcrumbs: breadcrumbsOf(doc),
    brandHref: doc.Brand === null ? null : filteredSearchUrl('brand', doc.Brand),
    name,
  };
}

/** The page's address with the SKU and EAN shown (`?codes=1`) or not: where the grid's form returns to. */
export const pageUrl = (page: ProductPage, codes: boolean): string => (codes ? `${page.action}&codes=1` : page.action);

/** The basket's refusal of the grid's lines, each on the quantity box it names (`basketChangeProblems`). */
export function refusedSizes(problems: ReadonlyArray<{ line?: number; message: string }>, lines: readonly GridLine[]): FieldError[] {
  return problems.map(({ line: index, message }) => {
    const line = index === undefined ? undefined : lines[index];
    return {
      field: line?.id ?? lines[0]?.id ?? 'colour-grid',
      message: line ? `${line.colour}, size ${line.size}: ${message}` : `Your basket cannot take these sizes: ${message}`,
    };
  });
}

/** The message on the page the grid's form redirects to: what was added, colour by colour ("Black: 2 × S, 1 × L; Red: 1 × M"). */
export function addedMessage(page: ProductPage, lines: readonly GridLine[]): string {
  const byColour = new Map<string, string[]>();
  for (const l of lines) byColour.set(l.colour, [...(byColour.get(l.colour) ?? []), `${formatQuantity(l.quantity)} × ${l.size}`]);
  const what = [...byColour].map(([colour, sizes]) => `${colour}: ${sizes.join(', ')}`).join('; ');
  return `Added to your basket: ${page.name}, ${what}.`;
}
