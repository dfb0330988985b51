import type { Queryable } from '../../platform/db/pool.js';

/**
 * SQL of the People page's invitations: the user, the link with its role and the provisioning
 * request the job `customers.provision-user` mails, written in the caller's transaction.
 */

/** The user of the email (any letter case), created with this name if new; an existing user keeps their name. */
export async function upsertUser(tx: Queryable, email: string, name: string): Promise<{ id: string; has_password: boolean }> {
  // DO UPDATE (a no-op) rather than DO NOTHING so an existing user's row comes back too.
  const { rows } = await tx.query<{ id: string; has_password: boolean }>(
    `INSERT INTO users (email, name) VALUES ($1, $2)
     ON CONFLICT (lower(email)) DO UPDATE SET email = users.email
     RETURNING id, password_hash IS NOT NULL AS has_password`,
    [email, name],
  );
  return rows[0] as { id: string; has_password: boolean };
}

/** Links the user to the account with the role; false when they were linked already (whatever their role or state). */
export async function insertLink(tx: Queryable, userId: string, accountNo: string, role: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    'INSERT INTO user_accounts (user_id, account_no, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [userId, accountNo, role],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The request of an invitation whose user is linked already, as a new round: its job sends this
 * round's mail. A request for the same account and email raised earlier and not yet carried out
 * (the ERP's `admin`, its job still queued) becomes this one.
 */
export async function upsertLinkedRequest(
  tx: Queryable, r: { accountNo: string; email: string; name: string; role: string; invitedBy: string; userId: string },
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO provisioning_requests (account_no, email, name, role, invited_by, user_id, linked_at)
     VALUES ($1, $2, $3, $4, $5, $6, now())
     ON CONFLICT (account_no, lower(email)) DO UPDATE SET
       role = EXCLUDED.role, invited_by = EXCLUDED.invited_by,
       user_id = EXCLUDED.user_id, linked_at = COALESCE(provisioning_requests.linked_at, now()),
       invitation_round = provisioning_requests.invitation_round + 1, mail_kind = NULL,
       invitation_token_hash = NULL, invitation_expires_at = NULL, invitation_sent_at = NULL
     RETURNING id::text`,
    [r.accountNo, r.email, r.name, r.role, r.invitedBy, r.userId],
  );
  return rows[0]?.id as string;
}

/** The linked user's email, name and role in the account, or undefined when not linked. */
export async function findLinkedUser(tx: Queryable, userId: string, accountNo: string): Promise<{ email: string; name: string; role: string } | undefined> {
  const { rows } = await tx.query<{ email: string; name: string; role: string }>(
    `SELECT u.email, u.name, ua.role FROM users u JOIN user_accounts ua ON ua.user_id = u.id AND ua.account_no = $2 WHERE u.id = $1`,
    [userId, accountNo],
  );
  return rows[0];
}
