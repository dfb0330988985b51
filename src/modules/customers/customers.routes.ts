import type { FastifyInstance } from 'fastify';
import type { BatchRouteDeps } from '../../platform/http/envelope.js';

export async function customersIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  void app;
  void deps;
}
