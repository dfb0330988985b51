import path from 'node:path';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';
import { migrateQueue } from '../jobs/worker.js';
import { PACKAGE_ROOT } from '../paths.js';

export const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, 'migrations');

/**
 * Applies every pending forward migration. node-pg-migrate takes an advisory lock, so several
 * processes starting at once against one server apply each migration exactly once. The job
 * queue's schema is migrated by graphile-worker itself, after ours.
 */
export async function migrate(databaseUrl: string, logger: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    migrationsTable: 'pgmigrations',
    direction: 'up',
    checkOrder: true,
    advisoryLockMode: 'wait',
    logger: {
      debug: (msg: string) => logger.debug(msg),
      info: (msg: string) => logger.debug(msg),
      warn: (msg: string) => logger.warn(msg),
      error: (msg: string) => logger.error(msg),
    },
  });
  await migrateQueue(databaseUrl, logger);
  const names = applied.map((m) => m.name);
  if (names.length > 0) logger.info({ migrations: names }, 'migrations applied');
  return names;
}
