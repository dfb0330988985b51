import type { Queryable } from '../../platform/db/pool.js';
import type { Role } from './roles.js';

/** SQL for portal users' credentials: passwords, invitations accepted, password resets. */

export interface InvitationRow {
  request_id: string;
  account_no: string;
  account_name: string;
  email: string;
  user_id: string | null;
  expired: boolean;
  accepted: boolean;
  has_password: boolean;
}

/**
 * The invitation a link's token opens: any link mailed for the request's current round (a retried
 * send mails a second one; both work, migration 1764000004100), none of an earlier round.
 */
export async function findInvitation(db: Queryable, tokenHash: Buffer, lock = false): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT r.id::text AS request_id, r.account_no, a.name AS account_name, COALESCE(u.email, r.email) AS email, r.user_id,
            r.invitation_expires_at <= now() AS expired, r.invitation_accepted_at IS NOT NULL AS accepted,
            u.password_hash IS NOT NULL AS has_password
     FROM invitation_links l
     JOIN provisioning_requests r ON r.id = l.request_id AND r.invitation_round = l.round
     JOIN accounts a USING (account_no)
     LEFT JOIN users u ON u.id = r.user_id
     WHERE l.token_hash = $1
     ${lock ? 'FOR UPDATE OF r' : ''}`,
    [tokenHash],
  );
  return rows[0];
}

export async function markInvitationAccepted(db: Queryable, requestId: string): Promise<void> {
  await db.query('UPDATE provisioning_requests SET invitation_accepted_at = now() WHERE id = $1', [requestId]);
}

/** Sets a user's password and ends every session of theirs, in the caller's transaction. */
export async function setPassword(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, password_changed_at = now() WHERE id = $1', [userId, passwordHash]);
  await db.query('DELETE FROM portal_sessions WHERE user_id = $1', [userId]);
}

/** The user signed in to an account just now (the People page shows it). */
export async function setLastSignIn(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE users SET last_sign_in_at = now() WHERE id = $1', [userId]);
}

export interface UserCredentials { id: string; email: string; password_hash: string | null }

export async function findUserByEmail(db: Queryable, email: string): Promise<UserCredentials | undefined> {
  const { rows } = await db.query<UserCredentials>(
    'SELECT id, email, password_hash FROM users WHERE lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

export interface LinkedAccount { accountNo: string; accountName: string; role: Role }

/** The accounts that exist a user is linked to and active in, by account number, with the user's role in each. */
export async function accountsOfUser(db: Queryable, userId: string): Promise<LinkedAccount[]> {
  const { rows } = await db.query<LinkedAccount>(
    `SELECT a.account_no AS "accountNo", a.name AS "accountName", ua.role
     FROM user_accounts ua JOIN accounts a USING (account_no)
     WHERE ua.user_id = $1 AND ua.deactivated_at IS NULL ORDER BY a.account_no`,
    [userId],
  );
  return rows;
}

export async function insertPasswordReset(db: Queryable, userId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO password_resets (user_id) VALUES ($1) RETURNING id::text',
    [userId],
  );
  return rows[0]?.id as string;
}

/** Removes reset rows asked for more than `keptDays` ago (housekeeping; a link works for an hour); the number removed. */
export async function deleteOldPasswordResets(db: Queryable, keptDays: number): Promise<number> {
  return (await db.query('DELETE FROM password_resets WHERE requested_at < now() - make_interval(days => $1)', [keptDays])).rowCount ?? 0;
}

export interface ResetRow {
  id: string;
  user_id: string;
  email: string;
  name: string;
  expired: boolean;
  used: boolean;
}

/** The reset a link's token opens: any link mailed for the request (a retried send mails a second one; both work). */
export async function findPasswordReset(db: Queryable, tokenHash: Buffer, lock = false): Promise<ResetRow | undefined> {
  const { rows } = await db.query<ResetRow>(
    `SELECT r.id::text, r.user_id, u.email, u.name, r.expires_at <= now() AS expired, r.used_at IS NOT NULL AS used
     FROM password_reset_links l
     JOIN password_resets r ON r.id = l.reset_id
     JOIN users u ON u.id = r.user_id
     WHERE l.token_hash = $1
     ${lock ? 'FOR UPDATE OF r' : ''}`,
    [tokenHash],
  );
  return rows[0];
}

/** Uses this reset link and every other unused one of the user: a new password makes older links pointless. */
export async function markResetsUsed(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId]);
}

/* ---- Mail preferences ---- */

export async function findDespatchNotices(db: Queryable, userId: string): Promise<boolean | undefined> {
  const { rows } = await db.query<{ despatch_notices: boolean }>('SELECT despatch_notices FROM users WHERE id = $1', [userId]);
  return rows[0]?.despatch_notices;
}

export async function updateDespatchNotices(db: Queryable, userId: string, on: boolean): Promise<void> {
  await db.query('UPDATE users SET despatch_notices = $2 WHERE id = $1', [userId, on]);
}

export interface MailRecipientRow { email: string; name: string; despatch_notices: boolean }

/** The user, while linked to the account and active in it: a deactivated colleague is mailed nothing more about its orders. */
export async function findAccountUser(db: Queryable, userId: string, accountNo: string): Promise<MailRecipientRow | undefined> {
  const { rows } = await db.query<MailRecipientRow>(
    `SELECT u.email, u.name, u.despatch_notices
       FROM users u JOIN user_accounts ua ON ua.user_id = u.id AND ua.account_no = $2 AND ua.deactivated_at IS NULL
      WHERE u.id = $1`,
    [userId, accountNo],
  );
  return rows[0];
}
