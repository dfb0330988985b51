import path from 'node:path';
import type { Logger } from 'pino';
import { migrateQueue } from '../jobs/worker.js';
import { PACKAGE_ROOT } from '../paths.js';

export const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, 'migrations');

/**
 * node-pg-migrate, loaded when a migration runs. On load it makes a jiti instance (its loader for
 * JavaScript and TypeScript migrations; ours are SQL), and jiti creates `node_modules/.cache/jiti`
 * unless told not to. A folder new in node_modules makes npm's record of it (the hidden lockfile)
 * look out of date, so every `npx portway …` after the first start read all of node_modules again.
 */
async function loadRunner(): Promise<typeof import('node-pg-migrate').runner> {
  // eslint-disable-next-line no-restricted-properties -- jiti takes its cache switch only from the environment
  process.env.JITI_FS_CACHE = 'false';
  return (await import('node-pg-migrate')).runner;
}

/**
 * Applies every pending forward migration. node-pg-migrate takes an advisory lock, so several
 * processes starting at once against one server apply each migration exactly once. The job
 * queue's schema is migrated by graphile-worker itself, after ours.
 */
export async function migrate(databaseUrl: string, logger: Logger): Promise<string[]> {
  const runner = await loadRunner();
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
