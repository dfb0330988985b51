import type { Config } from '../config.js';
import { openDatabase } from '../platform/db/database.js';
import { createLogger } from '../platform/logger.js';

export async function migrateCommand(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  // openDatabase applies pending migrations (and starts the embedded server when needed).
  const database = await openDatabase(config, logger);
  await database.close();
  process.stdout.write('migrations up to date\n');
}
