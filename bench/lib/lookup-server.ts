/**
 * The service for the lookup benchmark, run as a child process (`node --import tsx
 * bench/lib/lookup-server.ts`, started by bench/lib/server.ts): the real application built as
 * src/main.ts builds it (configuration from the environment, the database, the integration
 * verifier, buildApp with its public scope, API keys and rate limiter), plus, on the SAME Fastify
 * instance, the baseline routes the lookup is measured against:
 *
 *   POST /bench/baseline/by-sku, /by-ean   the lookup routes' body handling (same schema, same
 *                                          pass-through validator, same parseLookupKeys) and the
 *                                          same response schema, answered from memory: no API
 *                                          key, no rate limit, no database. Their requests/s are
 *                                          the ceiling of "Fastify + validation + serialisation"
 *                                          on this machine, measured in the same process.
 *   PUT  /bench/baseline/canned/:kind      stores the answer the real lookup gave for a list of
 *                                          keys; the baseline replays it, so both paths serialise
 *                                          byte-identical responses.
 *   DELETE /bench/baseline/canned          forgets every stored answer.
 *
 * The lookup scenario runs this entry twice over: as the service it measures (one process per key
 * mix, sent lookups only) and as the baseline (sent the canned answers and the baseline requests
 * only), so the answers it stores never count in the service's memory.
 *
 * The job worker is not started: the lookup queues no jobs, and an idle worker would only add
 * noise. Nothing here is reachable from the production entry point.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ByEanBodySchema, BySkuBodySchema, LookupResponseSchema, type LookupResult } from '../../src/modules/lookup/lookup.schemas.js';
import { parseLookupKeys, type LookupKind } from '../../src/modules/lookup/lookup.service.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { createIntegrationVerifier } from '../../src/platform/http/integration-auth.js';
import { AppError, ProblemSchema, errors } from '../../src/platform/http/problem.js';
import { boundHeapGrowth } from '../../src/platform/heap.js';
import { createLogger } from '../../src/platform/logger.js';
import { BASELINE_PREFIX } from './lookup-paths.js';

/** A canned answer of 100 results is ~50 KiB of JSON; leave room for larger stock lists. */
const CANNED_BODY_LIMIT = 8 * 1024 * 1024;

const cannedKey = (kind: LookupKind, keys: readonly string[]) => `${kind}\n${keys.join('\n')}`;

interface CannedBody { keys: string[]; data: LookupResult[] }

function isCannedBody(body: unknown): body is CannedBody {
  if (body === null || typeof body !== 'object') return false;
  const { keys, data } = body as Record<string, unknown>;
  return Array.isArray(keys) && keys.every((k) => typeof k === 'string') && Array.isArray(data) && data.length === keys.length;
}

async function baselineRoutes(scope: FastifyInstance): Promise<void> {
  const canned = new Map<string, { data: LookupResult[] }>();

  // Between key mixes: the next mix's answers replace the last one's rather than add to them.
  scope.delete('/canned', async (_request, reply) => {
    canned.clear();
    return reply.code(204).send();
  });

  scope.put('/canned/:kind', { bodyLimit: CANNED_BODY_LIMIT }, async (request, reply) => {
    const { kind } = request.params as { kind: string };
    if ((kind !== 'sku' && kind !== 'ean') || !isCannedBody(request.body)) {
      throw errors.badRequest('Expected PUT /canned/sku|ean with {keys: [...], data: [...]} of equal length.');
    }
    canned.set(cannedKey(kind, request.body.keys), { data: request.body.data });
    return reply.code(204).send();
  });

  const route = (kind: LookupKind, body: typeof BySkuBodySchema | typeof ByEanBodySchema) => {
    scope.post(`/by-${kind}`, {
      // As lookupRoutes declares it: the body schema documents, the service's parser validates,
      // and the response schema compiles the serialiser.
      schema: { body, response: { 200: LookupResponseSchema, 400: ProblemSchema, 500: ProblemSchema } },
      validatorCompiler: () => (value: unknown) => ({ value }),
    }, async (request) => {
      const keys = parseLookupKeys(request.body, kind);
      const answer = canned.get(cannedKey(kind, keys));
      // A miss is a bench bug (a body whose answer was not stored); a 500 makes autocannon count it as non-2xx.
      if (!answer) throw new AppError('internal', 500, 'Internal server error', 'No canned answer for these keys.');
      return answer;
    });
  };
  route('sku', BySkuBodySchema);
  route('ean', ByEanBodySchema);
}

const config = loadConfig(process.env);
// As src/main.ts does for `portway serve`.
boundHeapGrowth(config.heapGrowingPercent);
const logger = createLogger(config.logLevel, { format: config.logFormat });
const database = await openDatabase(config, logger);
const integrationVerifier = await createIntegrationVerifier(config);
const app = await buildApp({ config, pool: database.pool, integrationVerifier, logger });
await app.register(baselineRoutes, { prefix: BASELINE_PREFIX });
await app.listen({ port: config.port, host: config.host });

let closing = false;
const shutdown = async (signal: string) => {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'shutting down');
  // The bench stops the load before it stops the server, so nothing is in flight to wait for.
  try {
    await app.close();
    await database.close();
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
};
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
