import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { LedgerPageSchema, LedgerQuerySchema } from './ledger.schemas.js';
import { accountLedgerPage, ledgerEntryBatch, parseLedgerParams, type LedgerReadDeps } from './ledger.service.js';

export async function ledgerIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/customer/ledger', ledgerEntryBatch, deps, {
    summary: 'Upsert customer ledger entries; one result per item, keyed by entryNo as a string',
    tags: ['integration'],
  });
}

/**
 * GET /account/ledger inside the public scope (API key + rate limit). The query string is read by
 * parseLedgerParams, not by the schema, so that unknown parameters are ignored and every bad one is
 * named in one 400; the schema documents it.
 */
export async function ledgerPublicRoutes(app: FastifyInstance, deps: LedgerReadDeps): Promise<void> {
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
