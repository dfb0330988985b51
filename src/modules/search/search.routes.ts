import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { parseBrowseParams, parseSearchParams, parseSuggestParams } from './search.params.js';
import {
  BrowseQuerySchema, BrowseResponseSchema, SearchQuerySchema, SearchResponseSchema, SuggestQuerySchema, SuggestResponseSchema,
} from './search.schemas.js';
import type { SerializeAnswer } from './search.cache.js';
import { browse, search, suggest, type SearchDeps } from './search.service.js';


/**
 * GET /search, /suggest and /products inside the public scope (API key + rate limit). The query
 * strings are read by search.params.ts, not by the routes' schemas, so that unknown parameters are
 * ignored and every bad one is named in one 400; the schemas document them and serialise answers.
 */
export async function searchRoutes(app: FastifyInstance, deps: SearchDeps): Promise<void> {
  const route = <P>(
    url: string,
    summary: string,
    schemas: { querystring: TSchema; response: TSchema },
    parse: (query: Record<string, unknown>) => P,
    answer: (deps: SearchDeps, accountNo: string, params: P, serialize: SerializeAnswer) => Promise<object>,
  ) => {
    app.get(url, {
      schema: {
        summary,
        tags: ['public'],
        security: [{ publicApiKey: [] }],
        headers: CUSTOMER_HEADER_SCHEMA,
        querystring: schemas.querystring,
        response: { 200: schemas.response, ...PUBLIC_PROBLEMS },
      },
      validatorCompiler: () => (value: unknown) => ({ value }),
    }, async (request, reply) => {
      const body = await answer(deps, publicCallerOf(request).accountNo, parse(request.query as Record<string, unknown>), (a) => reply.serialize(a));
      // A body already serialised by the 200 schema (search and suggest keep answers so) is sent as it is.
      if (Buffer.isBuffer(body)) return reply.type('application/json; charset=utf-8').send(body);
      return body;
    });
  };
  route('/search', 'Search the colourways the account may see, with disjunctive facets, typo tolerance and paging',
    { querystring: SearchQuerySchema, response: SearchResponseSchema }, parseSearchParams, search);
  route('/suggest', 'Typeahead: products whose Description, Brand, ProductNo or Colour contain what was typed',
    { querystring: SuggestQuerySchema, response: SuggestResponseSchema }, parseSuggestParams, suggest);
  route('/products', 'Browse the colourways of a category and its descendants, read from the product tables',
    { querystring: BrowseQuerySchema, response: BrowseResponseSchema }, parseBrowseParams, browse);
}
