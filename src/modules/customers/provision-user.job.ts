import { createHash, randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { defineHandler, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import { sendOnce, type Mailer } from '../../platform/mail.js';

/**
 * Provisioning request raised by `admin` on PUT /customer, or by an Administrator's invitation on
 * the People page: create the portal user for the email (or link the existing one) to the account,
 * then send one mail: an invitation with a link to choose a password, or, to a user who already has
 * a password, a mail saying they were added to the account.
 */
export const provisionUser = {
  name: 'customers.provision-user',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), requestId: Type.String({ pattern: '^[0-9]+$' }) }),
  maxAttempts: 25,
  jobKey: (p: { requestId: string }) => `customers.provision-user:${p.requestId}`,
} satisfies JobType;

export const INVITATION_VALIDITY_DAYS = 14;

export interface ProvisionUserDeps {
  pool: Pool;
  mailer: Mailer;
  publicUrl: string;
  /** Test seams that simulate a crash at a given step; never set in production. */
  faults?: { beforeSend?(): void; afterSend?(): void };
}

/** Which mail a round of a request sends (migration 1764000003810). */
type MailKind = 'invitation' | 'added';

interface Request {
  id: string;
  account_no: string;
  account_name: string;
  email: string;
  name: string;
  /** The role invited as; null (the ERP's `admin`) is an Administrator. */
  role: string | null;
  inviter_name: string | null;
  invitation_round: number;
}

/**
 * The mail of a request's round: round 1 keeps the name it always had (`invitation-<request>`); each
 * "Resend invitation" is a new round with a mail of its own (`invitation-<request>-r2`), sent once.
 */
export const invitationMailId = (requestId: string, round = 1, kind: MailKind = 'invitation') =>
  `${kind}-${requestId}${round > 1 ? `-r${round}` : ''}`;

const withArticle = (role: string) => `${/^[AEIOU]/.test(role) ? 'an' : 'a'} ${role}`;

function invitationText(request: Request, link: string): string {
  const invited = request.role === null
    ? `You have been invited to order for ${request.account_name} (account ${request.account_no}) on Portway.`
    : `${request.inviter_name ?? 'An Administrator'} has invited you to ${request.account_name} (account ${request.account_no}) on Portway, as ${withArticle(request.role)}.`;
  return [
    `Hello ${request.name},`,
    '',
    invited,
    '',
    `Accept the invitation and choose your password here (valid for ${INVITATION_VALIDITY_DAYS} days):`,
    link,
    '',
    `You sign in with ${request.email}.`,
  ].join('\n');
}

function addedText(request: Request, signInLink: string): string {
  const by = request.inviter_name === null ? '' : ` by ${request.inviter_name}`;
  return [
    `Hello ${request.name},`,
    '',
    `You have been added${by} to ${request.account_name} (account ${request.account_no}) on Portway, as ${withArticle(request.role ?? 'Administrator')}.`,
    '',
    'Sign in as you do today, with your email address and the password you already have, then choose the account:',
    signInLink,
    '',
    `You sign in with ${request.email}.`,
  ].join('\n');
}

/** The round was replaced by a newer one ("Resend invitation") while this run was sending it: the newer run sends. */
class RoundSuperseded extends Error {}

/** Links the request's user (created for the email if new) to the account with the request's role; the user's id. */
async function linkUser(tx: Queryable, row: Request): Promise<string> {
  // DO UPDATE (a no-op) rather than DO NOTHING so an existing user's id comes back too.
  const user = await tx.query<{ id: string }>(
    `INSERT INTO users (email, name) VALUES ($1, $2)
     ON CONFLICT (lower(email)) DO UPDATE SET email = users.email
     RETURNING id`,
    [row.email, row.name],
  );
  const userId = user.rows[0]?.id as string;
  await tx.query(
    "INSERT INTO user_accounts (user_id, account_no, role) VALUES ($1, $2, COALESCE($3, 'Administrator')) ON CONFLICT DO NOTHING",
    [userId, row.account_no, row.role],
  );
  await tx.query('UPDATE provisioning_requests SET user_id = $2, linked_at = now() WHERE id = $1', [row.id, userId]);
  return userId;
}

/**
 * Each step is idempotent, so a retry after any crash picks up where the last attempt stopped:
 * user and link exist once (unique email, link primary key), and `invitation_sent_at` or sendOnce's
 * record (platform/mail.ts, committed right after the mail server accepted the mail) stops a second
 * mail. Over SMTP a crash in the instant between the server accepting the mail and that commit can
 * resend once; the stable Message-ID lets mail systems drop the duplicate, and both mails' links
 * work (every link of the round is kept, migration 1764000004100). Which mail a round sends
 * is decided once, under the request's lock, so a retry never sends the other one.
 */
export function provisionUserHandler(deps: ProvisionUserDeps): JobHandler {
  return defineHandler(provisionUser, async (payload, { logger }) => {
    const due = await withTransaction(deps.pool, async (tx) => {
      const { rows } = await tx.query<Request & { user_id: string | null; invitation_sent_at: string | null; mail_kind: MailKind | null }>(
        `SELECT r.id::text, r.account_no, a.name AS account_name, r.email, r.name, r.user_id, r.invitation_sent_at,
                r.role, inviter.name AS inviter_name, r.invitation_round, r.mail_kind
         FROM provisioning_requests r JOIN accounts a USING (account_no)
         LEFT JOIN users inviter ON inviter.id = r.invited_by
         WHERE r.id = $1 FOR UPDATE OF r`,
        [payload.requestId],
      );
      const row = rows[0];
      if (!row) return undefined;
      let userId = row.user_id;
      if (!userId) {
        userId = await linkUser(tx, row);
        logger.info({ accountNo: row.account_no, userId }, 'portal user linked to account');
      }
      if (row.invitation_sent_at) return undefined;
      let kind = row.mail_kind;
      if (kind === null) {
        const user = await tx.query<{ has_password: boolean }>('SELECT password_hash IS NOT NULL AS has_password FROM users WHERE id = $1', [userId]);
        kind = user.rows[0]?.has_password ? 'added' : 'invitation';
        await tx.query('UPDATE provisioning_requests SET mail_kind = $2 WHERE id = $1', [row.id, kind]);
      }
      return { request: row as Request, kind };
    });
    if (!due) return;
    const { request, kind } = due;
    const round = request.invitation_round;

    let sent: boolean;
    try {
      sent = await sendOnce(deps.pool, deps.mailer, invitationMailId(request.id, round, kind), async () => {
        if (kind === 'added') {
          const current = await deps.pool.query('SELECT 1 FROM provisioning_requests WHERE id = $1 AND invitation_round = $2', [request.id, round]);
          if (current.rowCount === 0) throw new RoundSuperseded();
          deps.faults?.beforeSend?.();
          return {
            to: request.email,
            subject: `You have been added to ${request.account_name} on Portway`,
            text: addedText(request, `${deps.publicUrl}/sign-in`),
          };
        }
        // The token is only ever stored hashed; a fresh one is issued for each send attempt. The
        // hashes of the round's earlier attempts stay valid (invitation_links): an attempt that died
        // after the mail server accepted its mail has mailed a link that must keep working.
        const token = randomBytes(32).toString('base64url');
        const issued = await deps.pool.query(
          `UPDATE provisioning_requests
           SET invitation_token_hash = $2, invitation_expires_at = now() + make_interval(days => $3)
           WHERE id = $1 AND invitation_round = $4`,
          [request.id, createHash('sha256').update(token).digest(), INVITATION_VALIDITY_DAYS, round],
        );
        if (issued.rowCount === 0) throw new RoundSuperseded();
        deps.faults?.beforeSend?.();
        return {
          to: request.email,
          subject: `Your Portway invitation for ${request.account_name}`,
          text: invitationText(request, `${deps.publicUrl}/invitations/${token}`),
        };
      });
    } catch (error) {
      if (!(error instanceof RoundSuperseded)) throw error;
      logger.info({ accountNo: request.account_no, round }, 'invitation round replaced by a newer one; not sent');
      return;
    }
    if (sent) deps.faults?.afterSend?.();
    await deps.pool.query(
      'UPDATE provisioning_requests SET invitation_sent_at = now() WHERE id = $1 AND invitation_sent_at IS NULL AND invitation_round = $2',
      [request.id, round],
    );
    logger.info({ accountNo: request.account_no, to: request.email, kind }, kind === 'added' ? 'added-to-account mail sent' : 'invitation sent');
  });
}
