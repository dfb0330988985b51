import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded.js';
import { migrate } from './migrate.js';
import { createPool, type Pool } from './pool.js';

export interface Database {
  /** Requests and jobs: transaction-scoped state only, so it may go through a pooler in transaction mode. */
  readonly pool: Pool;
  /** Where a session is: migrations, the search indexer's lock and LISTEN, the job queue (DATABASE_SESSION_URL, else the pool's). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Resolves where the database is (DATABASE_URL, or the embedded default under DATA_DIR), migrates it, and opens the pool.
 * `session`: the pool connects where sessions are too (a CLI command: `index rebuild` holds a session lock across transactions).
 */
export async function openDatabase(config: Config, logger: Logger, options: { migrate?: boolean; session?: boolean } = {}): Promise<Database> {
  let embedded: EmbeddedServer | undefined;
  let url = config.databaseSessionUrl ?? config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger, {
      // Restarted in place when it dies (embedded.ts); one that cannot be started again ends the
      // process with one clear line rather than a service answering 503 for ever.
      onLost: (error) => {
        logger.fatal({ err: error }, 'the embedded PostgreSQL died and could not be started again; exiting');
        process.exit(1);
      },
    });
    url = embedded.url;
  }
  try {
    if (options.migrate !== false) await migrate(url, logger);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const pooled = config.databaseSessionUrl !== undefined && options.session !== true;
  const pool = createPool({ url: pooled ? config.databaseUrl as string : url, max: config.databasePoolSize, transactionPooler: pooled });
  return {
    pool,
    url,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}
