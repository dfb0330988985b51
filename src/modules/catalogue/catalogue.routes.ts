import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { productBatch } from './catalogue.service.js';
import { mediaBatch } from './media.service.js';
import { brandBatch, categoryBatch } from './reference.service.js';

export async function catalogueIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/catalogue/products', productBatch, deps, {
    summary: 'Upsert products (size/colour variants); one result per item, keyed by sku',
    tags: ['integration'],
  });
  registerBatchRoute(app, '/catalogue/media', mediaBatch, deps, {
    summary: 'Replace the pictures of master products or colourways (Portway\'s addition to the twelve endpoints); one result per item, keyed `{masterProductNo}` or `{masterProductNo}_{color}` as the search key rule normalises it',
    tags: ['integration'],
  });
}

/** Reference data on the admin surface (`/api/admin`, JWT scope `admin`). */
export async function catalogueAdminRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/categories', categoryBatch, deps, {
    summary: 'Upsert categories, keyed by code; a parent cycle (own code, or closed with stored rows or other items) rejects every item on it; an unknown parent is accepted',
    tags: ['admin'],
    security: 'adminBearer',
  });
  registerBatchRoute(app, '/brands', brandBatch, deps, {
    summary: 'Upsert brands, keyed by code (no commas); the same rows as `portway brands set`',
    tags: ['admin'],
    security: 'adminBearer',
  });
}
