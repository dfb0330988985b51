import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Pool } from './platform/db/pool.js';
import type { ReadPool } from './platform/db/replicas.js';
import { ADMIN_SCOPE, installIntegrationAuth, type IntegrationVerifier } from './platform/http/integration-auth.js';
import { installJsonBodyParser } from './platform/http/json-body.js';
import { installBodyLimitDrain } from './platform/http/body-limit.js';
import { createLifecycle, installDraining, type Lifecycle } from './platform/http/lifecycle.js';
import { createMetrics, installHttpMetrics, installSearchIndexGauges, type Metrics } from './platform/http/metrics.js';
import { installProblemHandlers, ProblemSchema, errors } from './platform/http/problem.js';
import {
  CORRELATION_HEADER, correlationIdOf, installProtocolProblems, protocolServerOptions,
} from './platform/http/protocol-errors.js';
import { installPublicApiAuth } from './platform/http/public-auth.js';
import { installStrictTransportSecurity, STRICT_TRANSPORT_SECURITY } from './platform/http/hsts.js';
import { RequestLogController, requestSerializer } from './platform/http/request-log.js';
import { installRequestTextCheck } from './platform/http/request-text.js';
import { createWriteGate } from './platform/http/write-gate.js';
import { createRateLimiter } from './platform/http/rate-limit.js';
import { createPublicKeyAuthenticator } from './modules/api-keys/index.js';
import { catalogueAdminRoutes, catalogueIntegrationRoutes } from './modules/catalogue/index.js';
import { customersIntegrationRoutes, customersProblems } from './modules/customers/index.js';
import { freightIntegrationRoutes } from './modules/freight/index.js';
import { inventoryIntegrationRoutes } from './modules/inventory/index.js';
import { accountRoutes, ledgerIntegrationRoutes } from './modules/ledger/index.js';
import { LookupProductCache, lookupProblems, lookupRoutes } from './modules/lookup/index.js';
import { ordersIntegrationRoutes, ordersProblems, ordersRoutes, QuotePriceCache, TradingReferenceCache } from './modules/orders/index.js';
import { accountUsersRoutes } from './modules/people/index.js';
import { PriceRuleCache, pricingIntegrationRoutes } from './modules/pricing/index.js';
import { indexStatus, SearchAnswerCache, searchRoutes } from './modules/search/index.js';
import { taxIntegrationRoutes } from './modules/tax/index.js';
import { LINK_TOKEN_SEGMENTS } from './portal/auth.routes.js';
import { portalNotFound, portalPlugin, type PortalServices } from './portal/portal.plugin.js';

export interface AppDeps {
  config: Config;
  pool: Pool;
  /**
   * Where the reads that tolerate a bounded staleness go (DATABASE_READ_URL's replicas, main.ts):
   * the public lookup, search, suggest, browse and the portal's catalogue pages. Unset: the primary.
   */
  reads?: ReadPool;
  integrationVerifier: IntegrationVerifier;
  logger?: Logger | false;
  metrics?: Metrics;
  /** Whether the instance is leaving (readiness, `Connection: close`); main.ts drains it on a signal. */
  lifecycle?: Lifecycle;
  /** The clock of the rules that work in days (overdue ledger entries); tests pin it. */
  now?: () => Date;
}

/** TRUST_PROXY as Fastify takes it: a hop count as the function Fastify makes of one (its types omit the number). */
function trustProxyOption(trust: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** Routes an overloaded process still answers: a liveness probe must not fail because the process is busy. */
const NEVER_SHED = new Set(['/healthz', '/metrics']);
const SHED_RETRY_AFTER_SECONDS = 2;
const SHED_SAMPLE_MS = 1000;

/**
 * Load shedding: while the event loop lags, the heap is near its limit or too many queries wait for
 * a database connection, the primary's or a read replica's (sampled every second),
 * a request is answered 503 `…:overloaded` with Retry-After before any work, instead of joining a
 * queue that only grows. The problem is rendered by the one error handler.
 *
 * Nothing is shed in the first two samples after the app is ready: the first one measures the
 * start itself (compiling every route's schemas blocks the loop for a second or more on a busy
 * machine), and a process that has just started is not overloaded by its requests. Found by the
 * test suite: every request of a test file that ran within a second of its app's start was 503.
 */
async function installLoadShedding(app: FastifyInstance, shedding: Config['shedding'], pool: Pool, reads: ReadPool | undefined): Promise<void> {
  let shedFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    shedFrom = performance.now() + 2 * SHED_SAMPLE_MS;
  });
  await app.register(underPressure, {
    sampleInterval: SHED_SAMPLE_MS,
    maxEventLoopDelay: shedding.maxEventLoopDelayMs,
    maxHeapUsedBytes: shedding.maxHeapUsedBytes,
    // A database that cannot keep up leaves the event loop idle: the queue is the pool's. Found by
    // the load trial: lookups waited 10 s for a connection and failed instead of being shed.
    ...(shedding.maxPoolWaiting > 0
      ? { healthCheck: async () => pool.waitingCount + (reads?.waitingCount ?? 0) <= shedding.maxPoolWaiting, healthCheckInterval: SHED_SAMPLE_MS }
      : {}),
    pressureHandler: async (request) => {
      if (NEVER_SHED.has(request.routeOptions.url ?? '') || performance.now() < shedFrom) return;
      throw errors.overloaded(SHED_RETRY_AFTER_SECONDS);
    },
  });
}

/** Builds the HTTP application from its dependencies. It never listens; main.ts does. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const metrics = deps.metrics ?? createMetrics();
  // Served over https (PUBLIC_URL): browsers are told to use nothing else (platform/http/hsts.ts).
  const https = deps.config.publicUrl.startsWith('https:');
  const options: FastifyHttpOptions<Server> = {
    requestIdHeader: false,
    // One line per request, when it is answered (platform/http/request-log.ts).
    logController: new RequestLogController({ requestIdLogLabel: 'correlationId' }),
    genReqId: correlationIdOf,
    // Answers made outside the route handlers (431, unparseable requests, bad URLs, closing) as problems.
    ...protocolServerOptions(https ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
    forceCloseConnections: 'idle',
    // The client address (request.ip) the portal's per-address limits count: see TRUST_PROXY.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    ajv: { customOptions: { allErrors: true, coerceTypes: false } },
    // `/orders/` is `/orders`: a trailing slash finds the route (it answered 405 before, from the
    // method check below that already read it as the same path).
    routerOptions: { ignoreTrailingSlash: true },
  };
  // The request serializer of every log line: link tokens and secret query values written redacted,
  // on every route and every 404/405, not only in the portal's scope.
  const logger = deps.logger
    ? deps.logger.child({}, { serializers: { req: requestSerializer({ secretSegments: LINK_TOKEN_SEGMENTS }) } })
    : undefined;
  const app = Fastify({
    ...options,
    ...(logger ? { loggerInstance: logger } : { logger: false }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', async (request, reply) => {
    reply.header(CORRELATION_HEADER, request.id);
  });
  if (https) installStrictTransportSecurity(app);
  installProtocolProblems(app);
  const lifecycle = deps.lifecycle ?? createLifecycle();
  installDraining(app, lifecycle);
  installProblemHandlers(app, { notFoundPage: portalNotFound, refusals: [customersProblems, lookupProblems, ordersProblems] });
  installJsonBodyParser(app);
  installBodyLimitDrain(app);
  installRequestTextCheck(app);
  installHttpMetrics(app, metrics);
  installSearchIndexGauges(metrics, () => indexStatus(deps.pool));
  await installLoadShedding(app, deps.config.shedding, deps.pool, deps.reads);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Portway',
        version: '0.1.0',
        description: 'B2B wholesale commerce: ERP integration surface, admin reference data and public product API.',
      },
      components: {
        securitySchemes: {
          integrationBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Integration JWT with scope integration:write (InboundPolicy)' },
          adminBearer: {
            type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
            description: 'Integration JWT (same keys and rules) with scope admin, for reference data under /api/admin; integration:write does not open it, nor does admin open /api/integration',
          },
          publicApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/healthz', {
    schema: { summary: 'Liveness: the process is up', tags: ['operations'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', {
    schema: {
      summary: 'Readiness: the database answers and the instance is not shutting down',
      tags: ['operations'],
      response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: ProblemSchema },
    },
  }, async () => {
    if (lifecycle.draining) throw errors.shuttingDown();
    try {
      await deps.pool.query('SELECT 1');
    } catch {
      throw errors.databaseUnavailable();
    }
    return { status: 'ready' as const };
  });

  // One gate per process for every batch endpoint, integration and admin: at most a few batch
  // transactions at once, so the buyers' reads always find a connection and the database's time.
  // Writes rest (INTEGRATION_WRITE_DUTY_PERCENT) only while buyers' reads are being served: the
  // public API marks each request it takes.
  let lastRead = -Infinity;
  const writeGate = createWriteGate({ ...deps.config.integrationWrites, readsRecently: () => performance.now() - lastRead < 1000 });

  await app.register(async (integration) => {
    // The integration surface speaks JSON only; anything else is 415, not a confusing 400.
    integration.removeContentTypeParser(['text/plain']);
    installIntegrationAuth(integration, deps.integrationVerifier);
    const routeDeps = { pool: deps.pool, metrics, writeGate };
    await catalogueIntegrationRoutes(integration, routeDeps);
    await customersIntegrationRoutes(integration, routeDeps);
    await ledgerIntegrationRoutes(integration, routeDeps);
    await freightIntegrationRoutes(integration, routeDeps);
    await inventoryIntegrationRoutes(integration, routeDeps);
    await pricingIntegrationRoutes(integration, routeDeps);
    await taxIntegrationRoutes(integration, routeDeps);
    await ordersIntegrationRoutes(integration, routeDeps);
  }, { prefix: '/api/integration' });

  // Reference data the service owns (categories, brands): the same JWT scheme, its own scope.
  await app.register(async (admin) => {
    admin.removeContentTypeParser(['text/plain']);
    installIntegrationAuth(admin, deps.integrationVerifier, ADMIN_SCOPE);
    await catalogueAdminRoutes(admin, { pool: deps.pool, metrics, writeGate });
  }, { prefix: '/api/admin' });

  // Every price rule in memory, one copy per process, checked against the table's version on each use.
  const priceRules = new PriceRuleCache(deps.pool);
  // The lookup's decoded products, one copy per process, each checked against the database on every call.
  const lookupProductCache = new LookupProductCache(deps.config.lookupCacheMaxMb);
  // Freight and tax reference data of the destinations and tax keys quoted, one copy per process, checked against their version on each quote.
  const tradingReference = new TradingReferenceCache(deps.pool);
  // Quote line prices of the accounts, SKUs and quantities quoted, one copy per process, checked against the rules and product on each line.
  const quotePrices = new QuotePriceCache();
  // Search and suggest answers, one set per process, reused while the index and the account are unchanged.
  const searchAnswers = new SearchAnswerCache(deps.config.searchCacheMaxMb);
  // One limiter per process, shared by every public scope; counters in Redis when REDIS_URL is set.
  const rateLimiter = await createRateLimiter({ redisUrl: deps.config.redisUrl, logger: deps.logger || undefined });
  app.addHook('onClose', async () => rateLimiter.close());
  // One set of service dependencies for the public API and the portal: the portal's pages call the
  // same services with the same caches, so the two can never disagree.
  // The catalogue's reads go to the replicas; everything that writes or must read its own writes
  // (basket, orders, quotes, account, sessions, integration, admin) takes `deps.pool`, the primary.
  // Both sets share the caches: each stays correct whichever server answers (decisions: "Read replicas").
  const lookup = { pool: deps.pool, currency: deps.config.siteCurrency, rules: priceRules, products: lookupProductCache };
  const search = { pool: deps.pool, answers: searchAnswers };
  const services: PortalServices = {
    lookup: { ...lookup, reads: deps.reads },
    search: { ...search, reads: deps.reads },
    current: { lookup, search },
    account: { pool: deps.pool, currency: deps.config.siteCurrency, siteTimeZone: deps.config.siteTimeZone, now: deps.now },
    orders: {
      pool: deps.pool, currency: deps.config.siteCurrency, timeZone: deps.config.siteTimeZone, rules: priceRules, prices: quotePrices, reference: tradingReference, now: deps.now,
    },
  };
  await app.register(async (publicApi) => {
    publicApi.addHook('onRequest', async () => { lastRead = performance.now(); });
    installPublicApiAuth(publicApi, { authenticator: createPublicKeyAuthenticator(deps.pool), rateLimiter });
    await lookupRoutes(publicApi, services.lookup);
    await searchRoutes(publicApi, services.search);
    await accountRoutes(publicApi, services.account);
    await accountUsersRoutes(publicApi, { pool: deps.pool });
    await ordersRoutes(publicApi, services.orders);
  }, { prefix: '/api/public/v1' });

  // The buyer portal's pages at the root (/sign-in, /invitations/…, /assets/…); hidden from the OpenAPI document.
  await portalPlugin(app, { config: deps.config, pool: deps.pool, rateLimiter, services });

  return app;
}
