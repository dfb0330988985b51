import type { Queryable } from '../../platform/db/pool.js';
import type { ActivityEntry, ActivityKind, RecordedActivity } from './activity.service.js';

/** SQL of the account's activity (migration 1764000003800). */

export async function insertActivity(q: Queryable, entry: ActivityEntry): Promise<void> {
  await q.query(
    `INSERT INTO account_activity (account_no, actor_user_id, kind, subject_user_id, order_number, details)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
    [entry.accountNo, entry.actorUserId ?? null, entry.kind, entry.subjectUserId ?? null, entry.orderNumber ?? null, JSON.stringify(entry.details ?? {})],
  );
}

/** A page of the account's activity, newest first, with who acted and on whom by name; and the total. */
export async function findActivity(q: Queryable, accountNo: string, offset: number, limit: number): Promise<{ total: number; rows: RecordedActivity[] }> {
  const [{ rows }, count] = await Promise.all([
    q.query<RecordedActivity>(
      `SELECT e.id::text AS id, e.at, e.kind, e.order_number AS "orderNumber", e.details,
              actor.name AS "actorName", actor.email AS "actorEmail", subject.name AS "subjectName", subject.email AS "subjectEmail"
         FROM account_activity e
         LEFT JOIN users actor ON actor.id = e.actor_user_id
         LEFT JOIN users subject ON subject.id = e.subject_user_id
        WHERE e.account_no = $1
        ORDER BY e.at DESC, e.id DESC
        OFFSET $2 LIMIT $3`,
      [accountNo, offset, limit],
    ),
    q.query<{ total: string }>('SELECT count(*)::text AS total FROM account_activity WHERE account_no = $1', [accountNo]),
  ]);
  return { total: Number(count.rows[0]?.total ?? 0), rows: rows.map((r) => ({ ...r, kind: r.kind as ActivityKind })) };
}

/** Removes entries older than `keptMonths` months; the number removed. */
export async function deleteActivityBefore(q: Queryable, keptMonths: number): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM account_activity WHERE at < now() - make_interval(months => $1)', [keptMonths]);
  return rowCount ?? 0;
}
