import type { Queryable } from '../../platform/db/pool.js';
import type { Role } from './roles.js';

/**
 * Portal sessions. The id is stored only as its sha256; the caller hashes. Idle expiry is
 * `last_seen_at + idle`, absolute expiry `expires_at`; `last_seen_at` is written at most once per
 * TOUCH_INTERVAL_S so a page view is not a write.
 */
export const TOUCH_INTERVAL_S = 60;

export interface SessionRow {
  user_id: string;
  email: string;
  name: string;
  account_no: string | null;
  /** Null when the session names no account, or one the user is no longer linked to (or is deactivated in), or that no longer exists. */
  account_name: string | null;
  /** The user's role in the session's account; null with account_name. */
  role: Role | null;
  stale: boolean;
}

export async function insertSession(
  db: Queryable, idHash: Buffer, userId: string, accountNo: string | null, maxAgeMinutes: number,
): Promise<void> {
  // A user's expired sessions are removed as they sign in again, so the table does not keep them forever.
  await db.query('DELETE FROM portal_sessions WHERE user_id = $1 AND expires_at <= now()', [userId]);
  await db.query(
    `INSERT INTO portal_sessions (id_hash, user_id, account_no, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(mins => $4))`,
    [idHash, userId, accountNo, maxAgeMinutes],
  );
}

/** A session still in use: before its absolute end and not idle longer than `idleMinutes` (the SQL parameter `idle`). */
const live = (idle: string) => `s.expires_at > now() AND s.last_seen_at > now() - make_interval(mins => ${idle})`;

export async function findLiveSession(db: Queryable, idHash: Buffer, idleMinutes: number): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT s.user_id, u.email, u.name, s.account_no, a.name AS account_name, CASE WHEN a.name IS NOT NULL THEN ua.role END AS role,
            s.last_seen_at < now() - make_interval(secs => $3) AS stale
     FROM portal_sessions s
     JOIN users u ON u.id = s.user_id
     LEFT JOIN user_accounts ua ON ua.user_id = s.user_id AND ua.account_no = s.account_no AND ua.deactivated_at IS NULL
     LEFT JOIN accounts a ON a.account_no = ua.account_no
     WHERE s.id_hash = $1 AND ${live('$2')}`,
    [idHash, idleMinutes, TOUCH_INTERVAL_S],
  );
  return rows[0];
}

/** Removes every session findLiveSession would refuse (housekeeping); the number removed. */
export async function deleteEndedSessions(db: Queryable, idleMinutes: number): Promise<number> {
  return (await db.query(`DELETE FROM portal_sessions s WHERE NOT (${live('$1')})`, [idleMinutes])).rowCount ?? 0;
}

export async function touchSession(db: Queryable, idHash: Buffer): Promise<void> {
  await db.query('UPDATE portal_sessions SET last_seen_at = now() WHERE id_hash = $1', [idHash]);
}

/**
 * Sets the session's account, only when the user is linked to it and active in it; the session's
 * user and whether the account is another than the session had, or undefined when refused. The
 * joined `prior` row is the session as it was before this update.
 */
export async function setSessionAccount(db: Queryable, idHash: Buffer, accountNo: string): Promise<{ userId: string; changed: boolean } | undefined> {
  const { rows } = await db.query<{ user_id: string; changed: boolean }>(
    `UPDATE portal_sessions s SET account_no = $2
     FROM portal_sessions prior
     WHERE s.id_hash = $1 AND prior.id_hash = s.id_hash
       AND EXISTS (SELECT 1 FROM user_accounts ua JOIN accounts a USING (account_no)
                    WHERE ua.user_id = s.user_id AND ua.account_no = $2 AND ua.deactivated_at IS NULL)
     RETURNING s.user_id, prior.account_no IS DISTINCT FROM s.account_no AS changed`,
    [idHash, accountNo],
  );
  const row = rows[0];
  return row === undefined ? undefined : { userId: row.user_id, changed: row.changed };
}

/** Ends every session of the user that acts for the account (a deactivation); the number ended. */
export async function deleteAccountSessions(db: Queryable, userId: string, accountNo: string): Promise<number> {
  return (await db.query('DELETE FROM portal_sessions WHERE user_id = $1 AND account_no = $2', [userId, accountNo])).rowCount ?? 0;
}

export async function deleteSession(db: Queryable, idHash: Buffer): Promise<void> {
  await db.query('DELETE FROM portal_sessions WHERE id_hash = $1', [idHash]);
}
