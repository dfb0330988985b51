import type { FastifyInstance } from 'fastify';
import { errors, refusalProblems } from '../../platform/http/problem.js';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { ByEanBodySchema, BySkuBodySchema, LookupResponseSchema } from './lookup.schemas.js';
import { lookupRefusals } from './lookup.refusals.js';
import { lookupAnswer, parseLookupKeys, type LookupDeps, type LookupKind } from './lookup.service.js';

export type LookupRouteDeps = LookupDeps;

/** The API's 400 for each refusal of the keys, naming the list or each bad key at its JSON pointer. */
export const lookupProblems = refusalProblems(lookupRefusals, {
  'keys-not-a-list': ({ field }, message) => errors.badRequest(message, [{ path: `/${field}`, message: 'must be an array' }]),
  'keys-count': ({ field, maximum }, message) => errors.badRequest(message, [{ path: `/${field}`, message: `must hold 1 to ${maximum} keys` }]),
  'keys-invalid': ({ field, keys }) => {
    const problems = keys.map((k) => ({ path: `/${field}/${k.index}`, message: k.message }));
    const what = field === 'eans' ? 'EAN' : 'SKU';
    return errors.badRequest(`${problems.length} ${what}${problems.length === 1 ? ' is' : 's are'} invalid: ${problems.map((p) => p.path).join(', ')}.`, problems);
  },
});

const RESPONSES = {
  200: LookupResponseSchema,
  ...PUBLIC_PROBLEMS,
};

/** Fastify's own content type for a serialised JSON reply. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * POST /products/by-sku and /by-ean inside the public scope (API key + rate limit). The body is
 * checked by the service, not by the route's schema, so that every bad key is named in one 400; the
 * schemas still document the body and serialise the response.
 */
export async function lookupRoutes(app: FastifyInstance, deps: LookupRouteDeps): Promise<void> {
  const route = (url: string, kind: LookupKind, body: typeof BySkuBodySchema | typeof ByEanBodySchema, summary: string) => {
    app.post(url, {
      schema: {
        summary,
        tags: ['public'],
        security: [{ publicApiKey: [] }],
        headers: CUSTOMER_HEADER_SCHEMA,
        body,
        response: RESPONSES,
      },
      validatorCompiler: () => (value: unknown) => ({ value }),
    }, async (request, reply) => {
      const keys = parseLookupKeys(request.body, kind);
      const caller = publicCallerOf(request);
      // Already the JSON the 200 schema serialises (lookup.render.ts): sent as it is.
      return reply.type(JSON_TYPE).send(await lookupAnswer(deps, caller.accountNo, kind, keys));
    });
  };
  route('/products/by-sku', 'sku', BySkuBodySchema, 'Resolve up to 100 SKUs to the customer\'s net unit price and live stock');
  route('/products/by-ean', 'ean', ByEanBodySchema, 'Resolve up to 100 EAN-8/EAN-13 codes to the customer\'s net unit price and live stock');
}
