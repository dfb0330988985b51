import type { FastifyInstance } from 'fastify';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { ByEanBodySchema, BySkuBodySchema, LookupResponseSchema } from './lookup.schemas.js';
import { lookupAnswer, parseLookupKeys, type LookupDeps, type LookupKind } from './lookup.service.js';

export type LookupRouteDeps = LookupDeps;

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
