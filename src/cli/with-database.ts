import pino from 'pino';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../platform/db/database.js';

/**
 * Opens the database (migrating it, starting the embedded server when needed), runs `work`, and
 * closes it whatever happens. Logs go to stderr: stdout carries only the command's result (a key,
 * a list), so it can be captured by a script.
 */
export async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  const logger = pino({ level: config.logLevel, base: { service: 'portway' } }, pino.destination(2));
  const database = await openDatabase(config, logger);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
