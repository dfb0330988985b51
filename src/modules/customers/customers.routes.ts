import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { customerBatch } from './customers.service.js';

export async function customersIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/customer', customerBatch, deps, {
    summary: 'Upsert customer accounts with their ship-to addresses (a snapshot); an admin is provisioned and invited',
    tags: ['integration'],
  });
}
