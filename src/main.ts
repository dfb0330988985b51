import type { IncomingMessage, ServerResponse } from 'node:http';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { createIntegrationVerifier } from './platform/http/integration-auth.js';
import { boundHeapGrowth } from './platform/heap.js';
import { createLogger } from './platform/logger.js';
import type { Worker } from './platform/jobs/worker.js';
import { createMetrics } from './platform/http/metrics.js';
import { startSearchIndexer, type SearchIndexer } from './modules/search/search.indexer.js';
import { startJobWorker } from './worker.js';

/** What a start has opened so far, for the shutdown to close. */
interface Started {
  database?: Database;
  app?: FastifyInstance;
  worker?: Worker;
  indexer?: SearchIndexer;
  /** Responses still being worked on (see `start`). */
  inFlight: Set<ServerResponse>;
}

/** Opens the database, the HTTP server and the worker, recording each in `started`; on failure closes them again. */
async function start(config: Config, logger: Logger, started: Started): Promise<void> {
  const database = await openDatabase(config, logger);
  started.database = database;
  try {
    const integrationVerifier = await createIntegrationVerifier(config);
    const metrics = createMetrics();
    const app = await buildApp({ config, pool: database.pool, integrationVerifier, logger, metrics });
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
    await app.listen({ port: config.port, host: config.host });
    if (config.worker.inProcess) started.worker = await startJobWorker(config, database, logger);
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
    await database.close();
    started.worker = undefined;
    started.indexer = undefined;
    started.database = undefined;
    throw error;
  }
}

/**
 * Process entry: config → database (embedded or external, migrated) → HTTP and, unless
 * WORKER_IN_PROCESS=false, the job worker; graceful close on SIGTERM/SIGINT. The signal handlers
 * are in place before anything starts: a signal during the start lets it finish, then closes
 * everything, so the embedded PostgreSQL is never left behind by a service stopped early.
 */
export async function serve(config: Config): Promise<void> {
  boundHeapGrowth(config.heapGrowingPercent);
  const logger = createLogger(config.logLevel);
  const started: Started = { inFlight: new Set() };
  const starting = start(config, logger, started);
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    await starting.catch(() => undefined);
    // Requests in flight answer with `Connection: close`, so Node closes their sockets once they
    // are done and the client does not send more on them.
    for (const res of started.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    // In-flight requests finish first; new ones get 503 while closing.
    await started.app?.close();
    // Running jobs finish; queued ones wait in the database for the next start.
    await started.worker?.stop();
    // A refresh under way finishes; the lock is released with the indexer's connection.
    await started.indexer?.stop();
    await started.database?.close();
    logger.info('shutdown complete');
  });
  await starting;
}
