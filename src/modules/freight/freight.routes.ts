import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { freightRateBatch, packageTypeBatch, postcodeRouteBatch } from './freight.service.js';

export async function freightIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/fulfilment/postcode-routing', postcodeRouteBatch, deps, {
    summary: 'Upsert postcode routing rows (carrier and service per destination postcode); one result per item, keyed by id',
    tags: ['integration'],
  });
  registerBatchRoute(app, '/fulfilment/freight-rates', freightRateBatch, deps, {
    summary: 'Upsert freight rate rows (weight and order-value bands per carrier service); one result per item, keyed by id',
    tags: ['integration'],
  });
  registerBatchRoute(app, '/fulfilment/airbags', packageTypeBatch, deps, {
    summary: 'Upsert package types (airbags: cartons and satchels charged per package); one result per item, keyed by id',
    tags: ['integration'],
  });
}
