import type { FastifyInstance } from 'fastify';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { errors, refusalProblems } from '../../platform/http/problem.js';
import { customersRefusals } from './customers.refusals.js';
import { customerBatch } from './customers.service.js';

/** The API's answer to an unknown account, whichever module's route read it (lookup, search, quotes, orders, ledger). */
export const customersProblems = refusalProblems(customersRefusals, {
  'account-not-found': (_, message) => errors.notFound(message),
});

export async function customersIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/customer', customerBatch, deps, {
    summary: 'Upsert customer accounts with their ship-to addresses (a snapshot); an admin is provisioned and invited',
    tags: ['integration'],
  });
}
