import type { FastifyInstance } from 'fastify';
import { errors, refusalProblems } from '../../platform/http/problem.js';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { ledgerPublicRoutes } from '../ledger/ledger.routes.js';
import { AccountViewSchema } from './account.schemas.js';
import { accountOverview, type AccountDeps } from './account.service.js';
import { customersRefusals } from './customers.refusals.js';

export type AccountRouteDeps = AccountDeps;

/** The API's answer to an unknown account, whichever module's route read it (lookup, search, quotes, orders, ledger). */
export const customersProblems = refusalProblems(customersRefusals, {
  'account-not-found': (_, message) => errors.notFound(message),
});

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
