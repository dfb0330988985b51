import type { Queryable } from '../../platform/db/pool.js';
import type { BasketOwner } from './baskets.repository.js';

/**
 * What a partly added quick order shows, kept for the one page view after its redirect (post,
 * redirect, get): written in the transaction that added its good lines, taken (read and deleted)
 * by the next quick-order page. A newer one replaces it; one older than RESULT_TTL_S is not shown.
 */
export const RESULT_TTL_S = 600;

export async function saveQuickOrderResult(db: Queryable, owner: BasketOwner, result: unknown): Promise<void> {
  await db.query(
    `INSERT INTO quick_order_results (user_id, account_no, result) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, account_no) DO UPDATE SET result = EXCLUDED.result, created_at = now()`,
    [owner.userId, owner.accountNo, JSON.stringify(result)],
  );
}

/** The result left for this page, deleted as it is read; undefined when none (or too old). */
export async function takeQuickOrderResult<T>(db: Queryable, owner: BasketOwner): Promise<T | undefined> {
  const { rows } = await db.query<{ result: T; fresh: boolean }>(
    `DELETE FROM quick_order_results WHERE user_id = $1 AND account_no = $2
     RETURNING result, created_at > now() - make_interval(secs => $3) AS fresh`,
    [owner.userId, owner.accountNo, RESULT_TTL_S],
  );
  const row = rows[0];
  return row !== undefined && row.fresh ? row.result : undefined;
}

/** Removes results too old for takeQuickOrderResult to show (housekeeping); the number removed. */
export async function deleteStaleQuickOrderResults(db: Queryable): Promise<number> {
  return (await db.query('DELETE FROM quick_order_results WHERE created_at <= now() - make_interval(secs => $1)', [RESULT_TTL_S])).rowCount ?? 0;
}
