import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { AccountViewSchema, LedgerPageSchema, LedgerQuerySchema } from './ledger.schemas.js';
import { accountLedgerPage, accountOverview, ledgerEntryBatch, parseLedgerParams, type AccountDeps } from './ledger.service.js';

export async function ledgerIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/customer/ledger', ledgerEntryBatch, deps, {
    summary: 'Upsert customer ledger entries; one result per item, keyed by entryNo as a string',
    tags: ['integration'],
  });
}

/**
 * The customer's own account on the public API (API key + rate limit): GET /account, the account
 * with what it owes, and GET /account/ledger, its entries. Both act for the caller's account: a
 * customer key's own, or an integrator key's X-Customer-No.
 *
 * /account/ledger's query string is read by parseLedgerParams, not by the schema, so that unknown
 * parameters are ignored and every bad one is named in one 400; the schema documents it.
 */
export async function accountRoutes(app: FastifyInstance, deps: AccountDeps): Promise<void> {
  app.get('/account', {
    schema: {
      summary: 'The account as pushed, its ship-tos, the amount owed and the overdue ledger entries',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      response: { 200: AccountViewSchema, ...PUBLIC_PROBLEMS },
    },
  }, async (request) => accountOverview(deps, publicCallerOf(request).accountNo));

  app.get('/account/ledger', {
    schema: {
      summary: 'The account\'s ledger entries, newest first, each flagged overdue or not; open=true|false filters, paged',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      querystring: LedgerQuerySchema,
      response: { 200: LedgerPageSchema, ...PUBLIC_PROBLEMS },
    },
    validatorCompiler: () => (value: unknown) => ({ value }),
  }, async (request) =>
    accountLedgerPage(deps, publicCallerOf(request).accountNo, parseLedgerParams(request.query as Record<string, unknown>)));
}
