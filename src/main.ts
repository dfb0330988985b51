import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { openConnections } from './platform/db/pool.js';
import { createIntegrationVerifier } from './platform/http/integration-auth.js';
import { boundHeapGrowth } from './platform/heap.js';
import { createLogger } from './platform/logger.js';
import type { Worker } from './platform/jobs/worker.js';
import { createMetrics, replicaMetrics } from './platform/http/metrics.js';
import { openReplicas, type Replicas } from './platform/db/replicas.js';
import { createLifecycle, type Lifecycle } from './platform/http/lifecycle.js';
import { handleShutdown } from './platform/shutdown.js';
import { warmLookupStatements } from './modules/lookup/index.js';
import { startSearchIndexer, type SearchIndexer } from './modules/search/index.js';
import { startJobWorkerWhenReachable } from './worker.js';

/** What a start has opened so far, for the shutdown to close. */
interface Started {
  database?: Database;
  /** DATABASE_READ_URL's replicas, when set. */
  reads?: Replicas;
  app?: FastifyInstance;
  worker?: Worker;
  indexer?: SearchIndexer;
  /** Responses still being worked on (see `start`). */
  inFlight: Set<ServerResponse>;
}

/**
 * Opens the database, the HTTP server and the worker, recording each in `started`; on failure closes
 * them again. A shutdown that begins meanwhile (Ctrl-C during a first start's initdb) stops it after
 * the step under way: nothing more is opened.
 */
async function start(config: Config, logger: Logger, started: Started, lifecycle: Lifecycle): Promise<void> {
  const database = await openDatabase(config, logger);
  started.database = database;
  if (lifecycle.draining) return;
  try {
    const integrationVerifier = await createIntegrationVerifier(config);
    const metrics = createMetrics();
    const { readReplicas } = config;
    if (readReplicas.urls.length > 0) {
      started.reads = openReplicas({
        primary: database.pool, urls: readReplicas.urls, maxLagMs: readReplicas.maxLagMs, checkIntervalMs: readReplicas.checkIntervalMs,
        poolSize: config.databasePoolSize, observer: replicaMetrics(metrics), logger: logger.child({ component: 'read-replicas' }),
      });
    }
    const app = await buildApp({ config, pool: database.pool, reads: started.reads, integrationVerifier, logger, metrics, lifecycle });
    started.app = app;
    // Node's server.close() (called by app.close()) ends idle keep-alive sockets only once, at the
    // moment it is called; a request in flight then finishes with a keep-alive response and its
    // socket stays open until the client or keepAliveTimeout (72 s) closes it, so app.close()
    // outlived the grace delay: exit code 1 and the embedded PostgreSQL left running. Found by
    // test/e2e/serve.test.ts (a PUT blocked on a lock at SIGTERM).
    app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      started.inFlight.add(res);
      res.once('close', () => started.inFlight.delete(res));
    });
    if (lifecycle.draining) return;
    await openPoolConnections(config, database, logger);
    if (lifecycle.draining) return;
    await app.listen({ port: config.port, host: config.host });
    if (config.worker.inProcess) started.worker = await startJobWorkerWhenReachable(config, database, logger, () => lifecycle.draining);
    // Every instance runs the loop; one per database is active at a time (the others wait for its lock).
    started.indexer = startSearchIndexer(config, database, logger.child({ component: 'search-indexer' }), {
      refreshed(result) {
        metrics.searchDocumentsChanged.inc({ change: 'written' }, result.written);
        metrics.searchDocumentsChanged.inc({ change: 'removed' }, result.removed);
      },
    });
  } catch (error) {
    await started.indexer?.stop();
    await started.worker?.stop();
    await started.reads?.close();
    await database.close();
    started.reads = undefined;
    started.worker = undefined;
    started.indexer = undefined;
    started.database = undefined;
    throw error;
  }
}

/**
 * Opens DATABASE_POOL_WARM connections of the pool before the service listens, each warmed with the
 * lookup's statements. Opened on demand instead, the first burst of requests (a new instance behind
 * a balancer, a rolling restart) waited behind connections being opened (a backend started and
 * authenticated, its caches of the catalogue's tables filled, its statements planned): 50–180 ms
 * in the load trial's first seconds. Not fatal: what cannot open now opens when needed.
 */
async function openPoolConnections(config: Config, database: Database, logger: Logger): Promise<void> {
  if (config.databasePoolWarm === 0) return;
  const begun = performance.now();
  try {
    const connections = await openConnections(database.pool, config.databasePoolWarm, warmLookupStatements);
    logger.info({ connections, ms: Math.round(performance.now() - begun) }, 'database connections opened');
  } catch (error) {
    logger.warn({ err: error }, 'could not open every database connection before listening; the others open when needed');
  }
}

/**
 * Process entry: config → database (embedded or external, migrated) → HTTP and, unless
 * WORKER_IN_PROCESS=false, the job worker. The shutdown handlers are in place before anything
 * starts (platform/shutdown.ts): a signal during the start lets the step under way finish, opens
 * nothing more and closes what is open, so the embedded PostgreSQL is never left behind.
 * On SIGTERM /readyz turns 503 at once and every answer carries `Connection: close`; after
 * SHUTDOWN_DRAIN_MS the listener closes, requests in flight finish, then the worker, the indexer and
 * the database close.
 */
export async function serve(config: Config): Promise<void> {
  boundHeapGrowth(config.heapGrowingPercent);
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const started: Started = { inFlight: new Set() };
  const lifecycle = createLifecycle();
  const starting = start(config, logger, started, lifecycle);
  const shutdown = handleShutdown({
    logger,
    graceMs: config.shutdownGraceMs,
    onBegin: () => {
      lifecycle.drain();
      // Requests in flight answer with `Connection: close`, so Node closes their sockets once they
      // are done and the client does not send more on them.
      for (const res of started.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    },
    async close(signal) {
      await starting.catch(() => undefined);
      if (signal === 'SIGTERM' && config.shutdownDrainMs > 0 && started.app) {
        await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
      }
      // In-flight requests finish first; new ones get 503 while closing.
      await started.app?.close();
      // Running jobs finish; queued ones wait in the database for the next start.
      await started.worker?.stop();
      // A refresh under way finishes; the lock is released with the indexer's connection.
      await started.indexer?.stop();
      await started.reads?.close();
      await started.database?.close();
    },
  });
  try {
    await starting;
  } catch (error) {
    // A start cut short by the shutdown is the shutdown's to report, not a failure.
    if (!shutdown.begun) throw error;
  }
}
