import { performance } from 'node:perf_hooks';
import { withTransaction, type Pool } from '../../src/platform/db/pool.js';
import { lockIndexWrites } from '../../src/modules/search/search.repository.js';

/**
 * The service's search indexer, seen from a benchmark: every write to products (and a TRUNCATE of
 * it) wakes the indexer in the service process, whose refresh then reads the products in one
 * transaction for as long as it takes (tens of seconds after a first load of 100,000). Left alone,
 * that work lands in whatever the bench does next: a TRUNCATE between rounds waited behind the
 * refresh's lock on products and died of the pool's lock_timeout (`canceling statement due to lock
 * timeout` in emptyTables), and the refresh of one path's load ran during the other path's timing.
 */

/** How long `waitForIndexer` waits before it gives up (and the bench goes on, saying so). */
export const INDEXER_WAIT_MS = 5 * 60_000;

/**
 * Waits until the indexer has finished a refresh that began after every write committed before the
 * call: the watermark a refresh saves is its snapshot's xmin, so one above a transaction id taken
 * now saw everything committed before it. The indexer refreshes at least every
 * SEARCH_REFRESH_INTERVAL_MS (2 s), so an idle one passes the mark within that. On a shared server
 * another session's long transaction holds every snapshot's xmin back; after `timeoutMs` this
 * returns false instead of failing the run. Returns whether the indexer caught up.
 */
export async function waitForIndexer(pool: Pool, timeoutMs = INDEXER_WAIT_MS): Promise<boolean> {
  const { rows: [mark] } = await pool.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid');
  const started = performance.now();
  for (;;) {
    const { rows: [state] } = await pool.query<{ caught_up: boolean }>(
      'SELECT watermark > $1::xid8 AS caught_up FROM search_state', [mark?.xid],
    );
    if (state?.caught_up === true) return true;
    if (performance.now() - started > timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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
      await tx.query(`SET LOCAL lock_timeout = ${INDEXER_WAIT_MS}`);
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
