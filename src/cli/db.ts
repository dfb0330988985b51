import type { Config } from '../config.js';
import { createCliLogger } from '../platform/logger.js';

export async function migrateCommand(config: Config): Promise<void> {
  const { openDatabase } = await import('../platform/db/database.js');
  // openDatabase applies pending migrations (and starts the embedded server when needed).
  const database = await openDatabase(config, createCliLogger(config), { session: true });
  await database.close();
  process.stdout.write('migrations up to date\n');
}
