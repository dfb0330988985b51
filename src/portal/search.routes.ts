import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import type { Pool } from '../platform/db/pool.js';
import type { QueryProblem } from '../platform/schema/query-params.js';
import {
  DEFAULT_PAGE_SIZE, FACETS, FILTERS, parseSearchParams, parseSuggestParams, search, SearchResponseSchema, suggest, SuggestResponseSchema,
  type Facet, type Filter, type SearchParams, type SearchResponse,
} from '../modules/search/index.js';
import { availabilityOf, offersOf, priceRange, skusOfColourways, type SkuOffer } from './catalogue.data.js';
import { formatDate, formatMoney, formatQuantity } from './format.js';
import type { PortalServices } from './portal.plugin.js';
import { queryProblems } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import { buyerOf, type sessionGuards } from './session.js';

export interface CatalogueRoutesDeps {
  guards: ReturnType<typeof sessionGuards>;
  services: PortalServices;
  pool: Pool;
  /** Cookies only over HTTPS (the flash message's). */
  secure: boolean;
}

/**
 * The search service keeps answers as the bytes the public API's 200 schema serialises, shared by
 * both: the portal serialises with the very same schema, so a kept answer is the same either way.
 */
const serializerOf = (reply: FastifyReply, schema: TSchema) => (answer: object) =>
  reply.serializeInput(answer as Record<string, unknown>, schema as unknown as Record<string, unknown>);

/** The URL of a colourway's product page. */
export const productUrl = (masterProductNo: string, colour: string): string =>
  `/products/${encodeURIComponent(masterProductNo)}?colour=${encodeURIComponent(colour)}`;

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
function queryErrors(problems: readonly QueryProblem[]): FieldError[] {
  return problems.map(({ parameter: name, message }) => {
    if (name === 'q') return { field: 'q', message: `Search words ${message}` };
    if (name === 'page') return { field: 'q', message: `The page number in the address ${message}: search again` };
    if (name === 'pageSize') return { field: 'q', message: `The number of results per page in the address ${message}: search again` };
    return { field: 'q', message: `The ${name} filter in the address ${message}: search again` };
  });
}

export interface Card {
  href: string;
  name: string;
  colour: string;
  brand: string | null;
  sizes: string[];
  price: string;
  availability: string;
}

/** What a card shows of a colourway: its name and colour, the account's price or price range, and an availability hint. */
function cardOf(document: SearchResponse['data'][number], offers: readonly SkuOffer[], currency: string): Card {
  const range = priceRange(offers);
  const price = range === null ? 'No price'
    : range.min === range.max ? formatMoney(range.min, currency) : `${formatMoney(range.min, currency)} to ${formatMoney(range.max, currency)}`;
  const available = availabilityOf(offers);
  const availability = available.kind === 'now' ? `In stock: ${formatQuantity(available.quantity)} available now`
    : available.kind === 'incoming' ? `Out of stock: more expected ${formatDate(available.date)}` : 'Out of stock';
  return {
    href: productUrl(document.ProductNo, document.Colour),
    name: document.Description ?? document.ProductNo,
    colour: document.Colour,
    brand: document.Brand,
    sizes: document.AvailableSizes,
    price,
    availability,
  };
}

/**
 * The search page at `/` (the nav's "Search"): the search service as the public API calls it (same
 * parameters, same answer, the account's brand entitlement inside the query), then one statement for
 * the SKUs of the page's colourways and one lookup call for their net prices and stock.
 */
export async function searchRoutes(app: FastifyInstance, deps: CatalogueRoutesDeps): Promise<void> {
  const { guards, services, pool } = deps;

  const render = (reply: FastifyReply, data: Record<string, unknown> & { title: string }, status = 200) => {
    const buyer = buyerOf(reply.request);
    return sendPage(reply, 'search', { buyer, csrfToken: buyer.csrfToken, ...data }, status);
  };

  app.get('/', { schema: { hide: true }, preHandler: guards.requireBuyer }, async (request, reply) => {
    const buyer = buyerOf(request);
    const query = request.query as Record<string, unknown>;
    let params: SearchParams;
    try {
      params = parseSearchParams(query);
    } catch (error) {
      const problems = queryProblems(error);
      if (problems === undefined) throw error;
      const q = typeof query.q === 'string' ? query.q : '';
      return render(reply, { title: 'Search products', q, errors: queryErrors(problems), cards: [], facets: [], hidden: [] }, 400);
    }
    const body = await search(services.search, buyer.accountNo, params, serializerOf(reply, SearchResponseSchema));
    const answer = JSON.parse(body.toString('utf8')) as SearchResponse;

    const skus = await skusOfColourways(pool, answer.data.map((d) => d.ProductNo));
    const offers = await offersOf(services.lookup, buyer.accountNo, answer.data.flatMap((d) => skus.get(d.id) ?? []));
    const cards = answer.data.map((d) => cardOf(d, (skus.get(d.id) ?? []).flatMap((sku) => offers.get(sku) ?? []), services.lookup.currency));

    const facets = FACETS.map((facet) => {
      const param = FACET_PARAM[facet];
      const chosen = params.filters[param] ?? [];
      const isChosen = (value: string) => chosen.some((c) => c.toLowerCase() === value.toLowerCase());
      const values = answer.facets[facet].map((v) => ({ value: v.value, count: v.count, checked: isChosen(v.value) }));
      // A chosen value with no documents any more stays on the form, so it can be unticked.
      for (const c of chosen) if (!values.some((v) => v.value.toLowerCase() === c.toLowerCase())) values.push({ value: c, count: 0, checked: true });
      return { name: facet, param, values };
    });
    const hidden = (['size', 'stratificationCode'] as const).flatMap((name) => (params.filters[name] ?? []).map((value) => ({ name, value })));
    const chosenCount = FILTERS.reduce((n, name) => n + (params.filters[name]?.length ?? 0), 0);
    const first = answer.total === 0 ? 0 : (params.page - 1) * params.pageSize + 1;
    const heading = params.q === '' ? 'All products' : `Results for “${params.q}”`;
    return render(reply, {
      title: params.q === '' ? (params.page > 1 ? `All products (page ${params.page})` : 'Search products') : `${heading} (page ${params.page})`,
      heading,
      q: params.q,
      cards,
      facets,
      hidden,
      pageSize: params.pageSize === DEFAULT_PAGE_SIZE ? undefined : params.pageSize,
      total: answer.total,
      totalText: formatQuantity(answer.total),
      range: answer.total === 0 ? '' : `${formatQuantity(first)} to ${formatQuantity(first + answer.data.length - 1)}`,
      paging: pageLinks(params, answer.total),
      clearHref: params.q === '' ? '/' : `/?q=${encodeURIComponent(params.q)}`,
      chosenCount,
    });
  });

  /** The typeahead's suggestions as JSON (portal.js), the search service's suggest for the signed-in account. */
  app.get('/search/suggest', { schema: { hide: true }, preHandler: guards.requireBuyer }, async (request, reply) => {
    const buyer = buyerOf(request);
    reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).type('application/json; charset=utf-8');
    let params;
    try {
      params = parseSuggestParams(request.query as Record<string, unknown>);
    } catch (error) {
      if (queryProblems(error) === undefined) throw error;
      return reply.code(400).send('{"data":[]}');
    }
    const body = await suggest(services.search, buyer.accountNo, params, serializerOf(reply, SuggestResponseSchema));
    const { data } = JSON.parse(body.toString('utf8')) as { data: Array<{ text: string; ProductNo: string; Colour: string; Brand: string | null }> };
    return reply.send({ data: data.map((s) => ({ text: s.text, brand: s.Brand, colour: s.Colour, href: productUrl(s.ProductNo, s.Colour) })) });
  });
}
