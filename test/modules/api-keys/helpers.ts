import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadConfig } from '../../../src/config.js';
import type { Queryable } from '../../../src/platform/db/pool.js';
import { errors, installProblemHandlers } from '../../../src/platform/http/problem.js';
import { installPublicApiAuth, publicCallerOf } from '../../../src/platform/http/public-auth.js';
import { createRateLimiter, type RateLimiter } from '../../../src/platform/http/rate-limit.js';
import { createApiKey, createPublicKeyAuthenticator, type CreateApiKeyInput } from '../../../src/modules/api-keys/api-keys.service.js';

/** REDIS_URL as the service would read it: CI runs the suite once with it and once without. */
export const redisUrl = loadConfig({ REDIS_URL: process.env.REDIS_URL ?? '' }).redisUrl;

/** A Redis namespace of this test file's own, so parallel files and earlier runs never share counters. */
export const testKeyPrefix = (): string => `portway:test:${randomUUID()}`;

export async function insertAccount(db: Queryable, accountNo: string): Promise<void> {
  await db.query(`INSERT INTO accounts (account_no, name, status) VALUES ($1, $2, 'Active')`, [accountNo, `Account ${accountNo}`]);
}

export async function newKey(db: Queryable, input: CreateApiKeyInput): Promise<{ key: string; id: string; prefix: string }> {
  const { key, record } = await createApiKey(db, input);
  return { key, id: record.id, prefix: record.prefix };
}

export interface PublicTestApp {
  app: FastifyInstance;
  limiter: RateLimiter;
  close(): Promise<void>;
}

/**
 * A Fastify app with the platform's problem handlers and one public scope holding test routes:
 * `GET /api/public/v1/whoami` answers the caller, `GET /api/public/v1/fails` throws a 400 after auth.
 */
export async function buildPublicTestApp(
  pool: Queryable,
  options: { limiter?: RateLimiter; cacheTtlMs?: number; now?: () => number; logger?: Logger } = {},
): Promise<PublicTestApp> {
  const limiter = options.limiter ?? await createRateLimiter({ redisUrl, keyPrefix: testKeyPrefix() });
  const logger: FastifyBaseLogger | undefined = options.logger;
  const app = logger ? Fastify({ loggerInstance: logger }) : Fastify({ logger: false });
  installProblemHandlers(app);
  await app.register(async (scope) => {
    const authenticator = createPublicKeyAuthenticator(pool, {
      ...(options.cacheTtlMs !== undefined ? { cacheTtlMs: options.cacheTtlMs } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    installPublicApiAuth(scope, { authenticator, rateLimiter: limiter });
    scope.get('/whoami', async (request) => publicCallerOf(request));
    scope.get('/fails', async () => {
      throw errors.badRequest('The route refused the request.');
    });
  }, { prefix: '/api/public/v1' });
  await app.ready();
  return {
    app,
    limiter,
    async close() {
      await app.close();
      if (!options.limiter) await limiter.close();
    },
  };
}
