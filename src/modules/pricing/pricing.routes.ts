import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { priceRuleBatch } from './pricing.service.js';

export async function pricingIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/pricing/rules', priceRuleBatch, deps, {
    summary: 'Upsert price rules (price list lines), keyed by ruleId; rules not sent are left alone',
    tags: ['integration'],
  });
}
