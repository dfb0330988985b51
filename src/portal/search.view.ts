import type { QueryProblem } from '../platform/schema/query-params.js';
import { availableNow } from '../modules/inventory/index.js';
import {
  DEFAULT_PAGE_SIZE, DEFAULT_SORT, FACETS, FILTERS, SORTS, type DidYouMean, type Facet, type Filter, type SearchParams, type SearchResponse, type Sort,
} from '../modules/search/index.js';
import type { SkuOffer } from './catalogue.offers.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import { cardPicture, type Picture } from './pictures.js';
import { productUrl } from './links.js';
import type { FieldError } from './render.js';

/** The search page's view model: cards, facets, sort, paging, the words around them and "did you mean". */

/** The query parameter of each facet (the search service's filter). */
const FACET_PARAM: Record<Facet, Filter> = { Brand: 'brand', Category: 'category', Colour: 'colour', Gender: 'gender' };

/** Each filter as the page title names it. */
const FILTER_LABEL: Record<Filter, string> = {
  brand: 'Brand', category: 'Category', colour: 'Colour', gender: 'Gender', size: 'Size', stratificationCode: 'Stratification code',
};

/** The sort menu's words for each order the search service offers. */
const SORT_LABEL: Record<Sort, string> = { relevance: 'Relevance', name: 'Name (A to Z)', newest: 'Newest first' };

/** A search page's address with some parameters changed: shareable, as the form's GET makes it. */
function searchUrl(params: SearchParams, page: number, changes: { q?: string; filters?: SearchParams['filters'] } = {}): string {
  const query = new URLSearchParams();
  const q = changes.q ?? params.q;
  if (q !== '') query.set('q', q);
  for (const name of FILTERS) for (const value of (changes.filters ?? params.filters)[name] ?? []) query.append(name, value);
  if (params.sort !== DEFAULT_SORT) query.set('sort', params.sort);
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
    if (name === 'sort') return { field: 'q', message: `The order in the address ${message}: search again` };
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

/** The filters chosen, as a page title names them: "Brand: Acme, Colour: Red or Blue". */
function filtersText(params: SearchParams): string {
  return FILTERS.flatMap((name) => {
    const values = params.filters[name] ?? [];
    return values.length === 0 ? [] : [`${FILTER_LABEL[name]}: ${values.join(' or ')}`];
  }).join(', ');
}

/**
 * The page title: the words and the filters, so a tab, a bookmark and a screen reader's first words
 * say which search this is ("Search: hoodie — Brand: Acme, Size: M"), browse too ("All products —
 * Colour: Red"); then the page number, or that nothing was found.
 */
export function searchTitle(params: SearchParams, total: number): string {
  const filters = filtersText(params);
  const title = [params.q === '' ? 'All products' : `Search: ${params.q}`, ...(filters === '' ? [] : [filters])].join(' — ');
  if (total === 0) return `${title} (no results)`;
  return params.page > 1 ? `${title} (page ${params.page})` : title;
}

/** What the page says when nothing was found: which words matched nothing, what to try instead, and a way out of the filters. */
function emptyState(params: SearchParams, spelling: DidYouMean, chosenCount: number) {
  const quoted = (words: readonly string[]) => words.map((w) => `“${w}”`).join(', ');
  const words = params.q === '' ? [] : params.q.split(/\s+/);
  const filtered = chosenCount > 0;
  return {
    message: params.q !== '' ? `No products match “${params.q}”${filtered ? ' with these filters' : ''}.`
      : filtered ? 'No products match these filters.' : 'There are no products to show.',
    unmatched: spelling.unmatched.length === 0 ? ''
      : `${spelling.unmatched.length === 1 ? 'This word matched nothing' : 'These words matched nothing'}: ${quoted(spelling.unmatched)}.`,
    allWords: params.q !== '' && spelling.unmatched.length === 0 && !filtered && words.length > 1,
    suggestions: spelling.suggestions.map((q) => ({ text: q, href: searchUrl(params, 1, { q }) })),
  };
}

/** What the search page shows of an answer besides the cards; `spelling` when the answer is empty ("did you mean"). */
export function searchPage(params: SearchParams, answer: SearchResponse, cards: Card[], spelling: DidYouMean = { unmatched: [], suggestions: [] }) {
  const first = answer.total === 0 ? 0 : (params.page - 1) * params.pageSize + 1;
  const heading = params.q === '' ? 'All products' : `Results for “${params.q}”`;
  const chosenCount = FILTERS.reduce((n, name) => n + (params.filters[name]?.length ?? 0), 0);
  return {
    title: searchTitle(params, answer.total),
    heading,
    q: params.q,
    cards,
    facets: facetsOf(params, answer),
    hidden: (['size', 'stratificationCode'] as const).flatMap((name) => (params.filters[name] ?? []).map((value) => ({ name, value }))),
    pageSize: params.pageSize === DEFAULT_PAGE_SIZE ? undefined : params.pageSize,
    sortOptions: SORTS.map((value) => ({ value, label: SORT_LABEL[value], selected: value === params.sort })),
    total: answer.total,
    totalText: formatQuantity(answer.total),
    range: answer.total === 0 ? '' : `${formatQuantity(first)} to ${formatQuantity(first + answer.data.length - 1)}`,
    paging: pageLinks(params, answer.total),
    clearHref: searchUrl(params, 1, { filters: {} }),
    chosenCount,
    // Nothing found and nothing chosen: no filter panel at all (it would offer no value to tick).
    showFilters: answer.total > 0 || chosenCount > 0,
    filtersSummary: chosenCount === 0 ? 'Filters' : `Filters (${chosenCount} applied)`,
    empty: answer.total === 0 ? emptyState(params, spelling, chosenCount) : undefined,
  };
}
