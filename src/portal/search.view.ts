import type { QueryProblem } from '../platform/schema/query-params.js';
import { availableNow } from '../modules/inventory/index.js';
import { DEFAULT_PAGE_SIZE, FACETS, FILTERS, type Facet, type Filter, type SearchParams, type SearchResponse } from '../modules/search/index.js';
import type { SkuOffer } from './catalogue.offers.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import { cardPicture, type Picture } from './pictures.js';
import { productUrl } from './product.view.js';
import type { FieldError } from './render.js';

/** The search page's view model: cards, facets, paging and the words around them. */

/** The query parameter of each facet (the search service's filter). */
const FACET_PARAM: Record<Facet, Filter> = { Brand: 'brand', Category: 'category', Colour: 'colour', Gender: 'gender' };

/** A search page's address with some parameters changed: shareable, as the form's GET makes it. */
function searchUrl(params: SearchParams, page: number): string {
  const query = new URLSearchParams();
  if (params.q !== '') query.set('q', params.q);
  for (const name of FILTERS) for (const value of params.filters[name] ?? []) query.append(name, value);
  if (page > 1) query.set('page', String(page));
  if (params.pageSize !== DEFAULT_PAGE_SIZE) query.set('pageSize', String(params.pageSize));
  const text = query.toString();
  return text === '' ? '/' : `/?${text}`;
}

/** Page links: the first, the last and two either side of the current one, with gaps as ellipses. */
function pageLinks(params: SearchParams, total: number): { previous?: string; next?: string; items: Array<{ page: number; href: string; current: boolean } | null> } {
  const pages = Math.max(1, Math.ceil(total / params.pageSize));
  const items: Array<{ page: number; href: string; current: boolean } | null> = [];
  let last = 0;
  for (let page = 1; page <= pages; page += 1) {
    if (page !== 1 && page !== pages && Math.abs(page - params.page) > 2) continue;
    if (page - last > 1) items.push(null);
    items.push({ page, href: searchUrl(params, page), current: page === params.page });
    last = page;
  }
  return {
    ...(params.page > 1 ? { previous: searchUrl(params, params.page - 1) } : {}),
    ...(params.page < pages ? { next: searchUrl(params, params.page + 1) } : {}),
    items: pages > 1 ? items : [],
  };
}

/** A readable message for a bad query parameter (the search params' problem), linked to the search box. */
export function queryErrors(problems: readonly QueryProblem[]): FieldError[] {
  return problems.map(({ parameter: name, message }) => {
    if (name === 'q') return { field: 'q', message: `Search words ${message}` };
    if (name === 'page') return { field: 'q', message: `The page number in the address ${message}: search again` };
    if (name === 'pageSize') return { field: 'q', message: `The number of results per page in the address ${message}: search again` };
    return { field: 'q', message: `The ${name} filter in the address ${message}: search again` };
  });
}

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

export interface Card {
  href: string;
  name: string;
  colour: string;
  /** The colourway's first picture; null: a placeholder. */
  picture: Picture | null;
  brand: string | null;
  sizes: string[];
  price: string;
  availability: string;
}

/** What a card shows of a colourway: its name and colour, the account's price or price range, and an availability hint. */
export function cardOf(document: SearchResponse['data'][number], offers: readonly SkuOffer[], currency: string): Card {
  const range = priceRange(offers);
  const price = range === null ? 'No price'
    : range.min === range.max ? formatMoney(range.min, currency) : `${formatMoney(range.min, currency)} to ${formatMoney(range.max, currency)}`;
  const available = availabilityOf(offers);
  const availability = available.kind === 'now' ? `In stock: ${formatQuantity(available.quantity)} available now`
    : available.kind === 'incoming' ? `Out of stock: more expected ${formatDate(available.date)}` : 'Out of stock';
  const name = document.Description ?? document.ProductNo;
  return {
    href: productUrl(document.ProductNo, document.Colour),
    name,
    colour: document.Colour,
    picture: cardPicture(document.images, name, document.Colour),
    brand: document.Brand,
    sizes: document.AvailableSizes,
    price,
    availability,
  };
}

/** The four facets as checkboxes: each value with its count, a chosen value with no documents any more kept so it can be unticked. */
function facetsOf(params: SearchParams, answer: SearchResponse) {
  return FACETS.map((facet) => {
    const param = FACET_PARAM[facet];
    const chosen = params.filters[param] ?? [];
    const isChosen = (value: string) => chosen.some((c) => c.toLowerCase() === value.toLowerCase());
    const values = answer.facets[facet].map((v) => ({ value: v.value, count: v.count, checked: isChosen(v.value) }));
    for (const c of chosen) if (!values.some((v) => v.value.toLowerCase() === c.toLowerCase())) values.push({ value: c, count: 0, checked: true });
    return { name: facet, param, values };
  });
}

/** What the search page shows of an answer besides the cards. */
export function searchPage(params: SearchParams, answer: SearchResponse, cards: Card[]) {
  const first = answer.total === 0 ? 0 : (params.page - 1) * params.pageSize + 1;
  const heading = params.q === '' ? 'All products' : `Results for “${params.q}”`;
  return {
    title: params.q === '' ? (params.page > 1 ? `All products (page ${params.page})` : 'Search products') : `${heading} (page ${params.page})`,
    heading,
    q: params.q,
    cards,
    facets: facetsOf(params, answer),
    hidden: (['size', 'stratificationCode'] as const).flatMap((name) => (params.filters[name] ?? []).map((value) => ({ name, value }))),
    pageSize: params.pageSize === DEFAULT_PAGE_SIZE ? undefined : params.pageSize,
    total: answer.total,
    totalText: formatQuantity(answer.total),
    range: answer.total === 0 ? '' : `${formatQuantity(first)} to ${formatQuantity(first + answer.data.length - 1)}`,
    paging: pageLinks(params, answer.total),
    clearHref: params.q === '' ? '/' : `/?q=${encodeURIComponent(params.q)}`,
    chosenCount: FILTERS.reduce((n, name) => n + (params.filters[name]?.length ?? 0), 0),
  };
}
