import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { productBatch } from './catalogue.service.js';

export async function catalogueIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/catalogue/products', productBatch, deps, {
    summary: 'Upsert products (size/colour variants); one result per item, keyed by sku',
    tags: ['integration'],
  });
}
