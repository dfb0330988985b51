import type { IncomingMessage, ServerResponse } from 'node:http';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { createIntegrationVerifier } from './platform/http/integration-auth.js';
import { createLogger } from './platform/logger.js';
import type { Worker } from './platform/jobs/worker.js';
import { startJobWorker } from './worker.js';

/**
 * Process entry: config → database (embedded or external, migrated) → HTTP and, unless
 * WORKER_IN_PROCESS=false, the job worker; graceful close on SIGTERM/SIGINT.
 */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, logger);
  let worker: Worker | undefined;
  try {
    const integrationVerifier = await createIntegrationVerifier(config);
    const app = await buildApp({ config, pool: database.pool, integrationVerifier, logger });
    // Responses still being worked on. Node's server.close() (called by app.close()) ends idle
    // keep-alive sockets only once, at the moment it is called; a request in flight then finishes
    // with a keep-alive response and its socket stays open until the client or keepAliveTimeout
    // (72 s) closes it, so app.close() outlived the grace delay: exit code 1 and the embedded
    // PostgreSQL left running. Found by test/e2e/serve.test.ts (a PUT blocked on a lock at SIGTERM).
    const inFlight = new Set<ServerResponse>();
    app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
    });
    await app.listen({ port: config.port, host: config.host });
    if (config.worker.inProcess) worker = await startJobWorker(config, database, logger);

    closeWithGrace({ delay: 20_000, logger }, async ({ signal, err }) => {
      if (err) logger.error({ err }, 'shutting down after an error');
      else logger.info({ signal }, 'shutting down');
      // Requests in flight answer with `Connection: close`, so Node closes their sockets once they
      // are done and the client does not send more on them.
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      // In-flight requests finish first; new ones get 503 while closing.
      await app.close();
      // Running jobs finish; queued ones wait in the database for the next start.
      await worker?.stop();
      await database.close();
      logger.info('shutdown complete');
    });
  } catch (error) {
    await worker?.stop();
    await database.close();
    throw error;
  }
}
