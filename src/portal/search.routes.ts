import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import {
  colourwaySkus, didYouMean, parseSearchParams, parseSuggestParams, search, suggest, SearchResponseSchema, SuggestResponseSchema,
  type DidYouMean, type SearchParams, type SearchResponse,
} from '../modules/search/index.js';
import { offersOf } from './catalogue.offers.js';
import { takeFlash } from './flash.js';
import type { PageDeps } from './portal.types.js';
import { productUrl } from './links.js';
import { queryProblems } from './refusals.js';
import { sendPage } from './render.js';
import { cardOf, queryErrors, searchPage, type Card } from './search.view.js';
import { buyerOf, type SignedInBuyer } from './session.js';

/**
 * The search service keeps answers as the bytes the public API's 200 schema serialises, shared by
 * both: the portal serialises with the very same schema, so a kept answer is the same either way.
 */
const serializerOf = (reply: FastifyReply, schema: TSchema) => (answer: object) =>
  reply.serializeInput(answer as Record<string, unknown>, schema as unknown as Record<string, unknown>);

function render(reply: FastifyReply, data: Record<string, unknown> & { title: string }, status = 200) {
  const buyer = buyerOf(reply.request);
  return sendPage(reply, 'search', { buyer, csrfToken: buyer.csrfToken, ...data }, status);
}

/** The answer's cards: one search-service call for the SKUs of the page's colourways and one lookup call for their net prices and stock. */
async function cardsOf(deps: PageDeps, buyer: SignedInBuyer, answer: SearchResponse): Promise<Card[]> {
  const { services } = deps;
  const skus = await colourwaySkus(services.search, answer.data.map((d) => d.ProductNo));
  const offers = await offersOf(services.lookup, buyer.accountNo, answer.data.flatMap((d) => skus.get(d.id) ?? []));
  return answer.data.map((d) => cardOf(d, (skus.get(d.id) ?? []).flatMap((sku) => offers.get(sku) ?? []), services.lookup.currency));
}

/** When a search with words found nothing: the search service's "did you mean" for them. */
async function spellingOf(deps: PageDeps, buyer: SignedInBuyer, params: SearchParams, answer: SearchResponse): Promise<DidYouMean | undefined> {
  return answer.total === 0 && params.q !== '' ? didYouMean(deps.services.search, buyer.accountNo, params.q) : undefined;
}

/**
 * The search page at `/` (the nav's "Search"): the search service as the public API calls it (same
 * parameters, same answer, the account's brand entitlement inside the query), then one statement for
 * the SKUs of the page's colourways and one lookup call for their net prices and stock; when nothing
 * was found, "did you mean" instead.
 */
export async function searchRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const { guards, services } = deps;

  app.get('/', { schema: { hide: true }, preHandler: guards.requireBuyer }, async (request, reply) => {
    const buyer = buyerOf(request);
    const query = request.query as Record<string, unknown>;
    // The start page after signing in: where "your password is set" is said (auth.routes.ts).
    const flash = takeFlash(request, reply, deps.secure);
    let params: SearchParams;
    try {
      params = parseSearchParams(query);
    } catch (error) {
      const problems = queryProblems(error);
      if (problems === undefined) throw error;
      const q = typeof query.q === 'string' ? query.q : '';
      return render(reply, { title: 'Search products', q, errors: queryErrors(problems), cards: [], facets: [], hidden: [], sortOptions: [], flash }, 400);
    }
    const body = await search(services.search, buyer.accountNo, params, serializerOf(reply, SearchResponseSchema));
    const answer = JSON.parse(body.toString('utf8')) as SearchResponse;
    return render(reply, { ...searchPage(params, answer, await cardsOf(deps, buyer, answer), await spellingOf(deps, buyer, params, answer)), flash });
  });

  /** The typeahead's suggestions as JSON (portal.js), the search service's suggest for the signed-in account. */
  app.get('/search/suggest', { schema: { hide: true }, preHandler: guards.requireBuyerData }, async (request, reply) => {
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
