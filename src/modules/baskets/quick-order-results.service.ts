import type { Queryable } from '../../platform/db/pool.js';
import type { BasketOwner } from './baskets.repository.js';
import * as stored from './quick-order-results.repository.js';

/**
 * A partly added quick order's result, kept for the one page view after its redirect (the portal's
 * quick-order page saves it in the transaction that added the good lines, and takes it on the next
 * view); housekeeping removes those nobody came back for.
 */

export function saveQuickOrderResult(db: Queryable, owner: BasketOwner, result: unknown): Promise<void> {
  return stored.saveQuickOrderResult(db, owner, result);
}

/** The result left for this page, deleted as it is read; undefined when none (or too old). */
export function takeQuickOrderResult<T>(db: Queryable, owner: BasketOwner): Promise<T | undefined> {
  return stored.takeQuickOrderResult<T>(db, owner);
}

/** Removes results too old to be shown; the number removed. */
export function deleteStaleQuickOrderResults(db: Queryable): Promise<number> {
  return stored.deleteStaleQuickOrderResults(db);
}
