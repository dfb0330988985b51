import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { ledgerEntryBatch } from './ledger.service.js';

export async function ledgerIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/customer/ledger', ledgerEntryBatch, deps, {
    summary: 'Upsert customer ledger entries; one result per item, keyed by entryNo as a string',
    tags: ['integration'],
  });
}
