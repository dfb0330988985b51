import type { Queryable } from '../../platform/db/pool.js';
import type { Role } from '../users/index.js';

/** SQL of an account's people: the links of user_accounts with their users (migrations 1764000003800, …3810). */

export interface PersonRow {
  userId: string;
  name: string;
  email: string;
  role: Role;
  deactivated: boolean;
  /** They have chosen a password (accepted an invitation, or reset it): they can sign in. */
  hasPassword: boolean;
  lastSignInAt: Date | null;
  /** numeric(19,4) as PostgreSQL writes it, or null: none. */
  orderLimit: string | null;
}

const PERSON = `u.id AS "userId", u.name, u.email, ua.role, ua.deactivated_at IS NOT NULL AS deactivated,
  u.password_hash IS NOT NULL AS "hasPassword", u.last_sign_in_at AS "lastSignInAt", ua.order_limit::text AS "orderLimit"`;

/** The account's people by email, whatever its letter case. */
export async function findPeople(q: Queryable, accountNo: string): Promise<PersonRow[]> {
  const { rows } = await q.query<PersonRow>(
    `SELECT ${PERSON} FROM user_accounts ua JOIN users u ON u.id = ua.user_id
      WHERE ua.account_no = $1 ORDER BY lower(u.email), u.email`,
    [accountNo],
  );
  return rows;
}

export async function findPerson(q: Queryable, accountNo: string, userId: string): Promise<PersonRow | undefined> {
  const { rows } = await q.query<PersonRow>(
    `SELECT ${PERSON} FROM user_accounts ua JOIN users u ON u.id = ua.user_id WHERE ua.account_no = $1 AND ua.user_id = $2`,
    [accountNo, userId],
  );
  return rows[0];
}

/**
 * Every link of the account, locked in one order (by user id) until the transaction ends: changes
 * to one account's people take their turns, and each sees the roles and states the one before it
 * committed, so two changes at once cannot both leave the other Administrator as the last one.
 */
export async function lockPeople(tx: Queryable, accountNo: string): Promise<PersonRow[]> {
  const { rows } = await tx.query<PersonRow>(
    `SELECT ${PERSON} FROM user_accounts ua JOIN users u ON u.id = ua.user_id
      WHERE ua.account_no = $1 ORDER BY ua.user_id FOR UPDATE OF ua`,
    [accountNo],
  );
  return rows;
}

export async function updateRole(tx: Queryable, accountNo: string, userId: string, role: Role): Promise<void> {
  await tx.query('UPDATE user_accounts SET role = $3 WHERE account_no = $1 AND user_id = $2', [accountNo, userId, role]);
}

export async function updateDeactivated(tx: Queryable, accountNo: string, userId: string, deactivated: boolean): Promise<void> {
  await tx.query(
    `UPDATE user_accounts SET deactivated_at = CASE WHEN $3 THEN now() END WHERE account_no = $1 AND user_id = $2`,
    [accountNo, userId, deactivated],
  );
}

export async function updateOrderLimit(tx: Queryable, accountNo: string, userId: string, limit: string | null): Promise<void> {
  await tx.query('UPDATE user_accounts SET order_limit = $3 WHERE account_no = $1 AND user_id = $2', [accountNo, userId, limit]);
}
