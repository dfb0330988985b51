import type { Config } from '../config.js';
import type { Database } from '../platform/db/database.js';

/**
 * Opens the database (migrating it, starting the embedded server when needed), runs `work`, and
 * closes it whatever happens. Only warnings and errors are logged, to stderr: stdout carries only
 * the command's result (a key, a list), so it can be captured by a script. The database and log
 * modules are loaded here, not when the command line starts, so `--help` and `token mint` do not
 * wait for them.
 */
export async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  const { openDatabase } = await import('../platform/db/database.js');
  const { createCliLogger } = await import('../platform/logger.js');
  // A session for the pool too: a command is one short process, and `index rebuild` holds a lock across transactions.
  const database = await openDatabase(config, createCliLogger(config), { session: true });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
