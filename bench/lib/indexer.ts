import pg from 'pg';
import { withTransaction, type Pool } from '../../src/platform/db/pool.js';
import { LOOP_LOCK, indexStatus, lockIndexWrites } from '../../src/modules/search/search.repository.js';
import type { Queryable } from '../../src/platform/db/pool.js';
import type { RunningServer } from './server.js';

/**
 * The service's search indexer, seen from a benchmark: every write to products (and a TRUNCATE of
 * it) wakes the indexer in the service process, whose refresh then reads the products in one
 * transaction for as long as it takes (tens of seconds after a first load of 100,000). Left alone,
 * that work lands in whatever the bench does next: a TRUNCATE between rounds waited behind the
 * refresh's lock on products and died of the pool's lock_timeout (`canceling statement due to lock
 * timeout` in emptyTables), and the refresh of one path's load ran during the other path's timing.
 */

/** The lock_timeout of the bench's TRUNCATE: set-up may wait, it must not fail. */
export const SETUP_LOCK_TIMEOUT_MS = 5 * 60_000;

/**
 * TRUNCATEs `tables` (CASCADE) as bench set-up that cannot fail on a lock: inside a transaction
 * holding the index's write lock, which every refresh takes first (so none is half-way through
 * reading products, and none starts until the TRUNCATE committed), with a lock_timeout of minutes
 * rather than the pool's 10 s (autovacuum gives way to a TRUNCATE by itself). Should it still time
 * out, the error names the sessions that were there.
 */
export async function truncateTables(pool: Pool, tables: readonly string[]): Promise<void> {
  try {
    await withTransaction(pool, async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = ${SETUP_LOCK_TIMEOUT_MS}`);
      await lockIndexWrites(tx);
      // CASCADE: tables the bench never writes may still reference these (user_accounts → accounts),
      // and PostgreSQL refuses to truncate a referenced table without them.
      await tx.query(`TRUNCATE ${tables.join(', ')} CASCADE`);
    });
  } catch (error) {
    const { rows } = await pool.query<Record<string, unknown>>(`
      SELECT pid, application_name, backend_type, state, wait_event_type, left(query, 200) AS query
        FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).catch(() => ({ rows: [] }));
    throw new Error(`TRUNCATE ${tables.join(', ')} failed (${error instanceof Error ? error.message : String(error)}); sessions on the database: ${JSON.stringify(rows)}`, { cause: error });
  }
}

/**
 * Keeps every service's indexer loop idle: the loop refreshes only while it holds LOOP_LOCK (one
 * active loop per database), so a session holding it first, before the service starts, leaves the
 * service's loop trying for it at every interval and never refreshing. Returns the release.
 */
export async function holdIndexerLoop(databaseUrl: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'portway-bench-indexer-hold' });
  await client.connect();
  const { rows: [held] } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOOP_LOCK]);
  if (held?.locked !== true) {
    await client.end();
    throw new Error('another session holds the search indexer loop lock of the benchmark database');
  }
  return () => client.end();
}

/** How long the service's indexer may take to index a freshly loaded catalogue (a million products included). */
export const INDEX_TIMEOUT_MS = 20 * 60_000;

/**
 * Waits until the service's search indexer has indexed what the scenario loaded (no change left,
 * and `documents` of them when given, else some), so that it is idle while anything is timed: a
 * freshly started service indexes the whole catalogue first. The seconds it took.
 */
export async function waitForIndex(db: Queryable, server: Pick<RunningServer, 'logTail'>, documents?: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const status = await indexStatus(db);
    if ((documents === undefined ? status.documents > 0 : status.documents === documents) && status.lagSeconds === 0) break;
    if (performance.now() - started > INDEX_TIMEOUT_MS) {
      throw new Error(`the indexer holds ${status.documents}${documents === undefined ? '' : ` of ${documents}`} documents (lag ${status.lagSeconds} s) `
        + `${INDEX_TIMEOUT_MS / 60_000} min after the service started\n${server.logTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return (performance.now() - started) / 1000;
}
