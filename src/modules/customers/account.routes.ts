import type { FastifyInstance } from 'fastify';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { ledgerPublicRoutes } from '../ledger/ledger.routes.js';
import { AccountViewSchema } from './account.schemas.js';
import { accountOverview, type AccountDeps } from './account.service.js';

export type AccountRouteDeps = AccountDeps;

/**
 * The customer's own account on the public API (API key + rate limit): GET /account, and its
 * ledger, GET /account/ledger, which the ledger module serves. Both act for the caller's account:
 * a customer key's own, or an integrator key's X-Customer-No.
 */
export async function accountRoutes(app: FastifyInstance, deps: AccountRouteDeps): Promise<void> {
  app.get('/account', {
    schema: {
      summary: 'The account as pushed, its ship-tos, the amount owed and the overdue ledger entries',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      response: { 200: AccountViewSchema, ...PUBLIC_PROBLEMS },
    },
  }, async (request) => accountOverview(deps, publicCallerOf(request).accountNo));
  await ledgerPublicRoutes(app, deps);
}
