import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { inventoryBatch } from './inventory.service.js';

export async function inventoryIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/inventory', inventoryBatch, deps, {
    summary: 'Upsert stock per SKU and location (locations and their incoming lines are a snapshot)',
    tags: ['integration'],
  });
}
