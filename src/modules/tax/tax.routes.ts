import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { areaBatch, gstPostingRatesBatch, jurisdictionBatch } from './tax.service.js';

export async function taxIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/tax/jurisdictions', jurisdictionBatch, deps, {
    summary: 'Upsert tax jurisdictions, keyed by code; rates are a snapshot keyed on taxGroupCode + effectiveDate',
    tags: ['integration'],
  });
  registerBatchRoute(app, '/tax/areas', areaBatch, deps, {
    summary: 'Upsert tax areas, keyed by code; jurisdictionCodes are a snapshot',
    tags: ['integration'],
  });
  registerBatchRoute(app, '/tax/gst-posting-rates', gstPostingRatesBatch, deps, {
    summary: 'Upsert the GST posting-group rate matrix; one result keyed "matrix" per item, one child per pair; pairs not sent are kept',
    tags: ['integration'],
  });
}
