import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { createIntegrationVerifier } from './platform/http/integration-auth.js';
import { createLogger } from './platform/logger.js';

/** Process entry: config → database (embedded or external, migrated) → HTTP; graceful close on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, logger);
  try {
    const integrationVerifier = await createIntegrationVerifier(config);
    const app = await buildApp({ config, pool: database.pool, integrationVerifier, logger });
    await app.listen({ port: config.port, host: config.host });

    closeWithGrace({ delay: 20_000, logger }, async ({ signal, err }) => {
      if (err) logger.error({ err }, 'shutting down after an error');
      else logger.info({ signal }, 'shutting down');
      // In-flight requests finish first; new ones get 503 while closing.
      await app.close();
      await database.close();
      logger.info('shutdown complete');
    });
  } catch (error) {
    await database.close();
    throw error;
  }
}
