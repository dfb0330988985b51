import type { Queryable } from '../../src/platform/db/pool.js';
import { indexStatus } from '../../src/modules/search/search.repository.js';
import type { RunningServer } from './server.js';

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
