import { createHash, randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { withTransaction, type Pool } from '../../platform/db/pool.js';
import { defineHandler, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import { sendOnce, type Mailer } from '../../platform/mail.js';

/**
 * Provisioning request raised by `admin` on PUT /customer: create the portal user for the email
 * (or link the existing one) to the account, then send one invitation.
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

interface Request {
  id: string;
  account_no: string;
  account_name: string;
  email: string;
  name: string;
}

export const invitationMailId = (requestId: string) => `invitation-${requestId}`;

function invitationText(request: Request, link: string): string {
  return [
    `Hello ${request.name},`,
    '',
    `You have been invited to order for ${request.account_name} (account ${request.account_no}) on Portway.`,
    '',
    `Accept the invitation and choose your password here (valid for ${INVITATION_VALIDITY_DAYS} days):`,
    link,
    '',
    `You sign in with ${request.email}.`,
  ].join('\n');
}

/**
 * Each step is idempotent, so a retry after any crash picks up where the last attempt stopped:
 * user and link exist once (unique email, link primary key), and `invitation_sent_at` or sendOnce's
 * record (platform/mail.ts, committed right after the mail server accepted the mail) stops a second
 * invitation. Over SMTP a crash in the instant between the server accepting the mail and that
 * commit can resend once; the stable Message-ID lets mail systems drop the duplicate.
 */
export function provisionUserHandler(deps: ProvisionUserDeps): JobHandler {
  return defineHandler(provisionUser, async (payload, { logger }) => {
    const request = await withTransaction(deps.pool, async (tx) => {
      const { rows } = await tx.query<Request & { user_id: string | null; invitation_sent_at: string | null }>(
        `SELECT r.id::text, r.account_no, a.name AS account_name, r.email, r.name, r.user_id, r.invitation_sent_at
         FROM provisioning_requests r JOIN accounts a USING (account_no)
         WHERE r.id = $1 FOR UPDATE OF r`,
        [payload.requestId],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (!row.user_id) {
        // DO UPDATE (a no-op) rather than DO NOTHING so an existing user's id comes back too.
        const user = await tx.query<{ id: string }>(
          `INSERT INTO users (email, name) VALUES ($1, $2)
           ON CONFLICT (lower(email)) DO UPDATE SET email = users.email
           RETURNING id`,
          [row.email, row.name],
        );
        const userId = user.rows[0]?.id as string;
        await tx.query(
          'INSERT INTO user_accounts (user_id, account_no) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [userId, row.account_no],
        );
        await tx.query('UPDATE provisioning_requests SET user_id = $2, linked_at = now() WHERE id = $1', [row.id, userId]);
        logger.info({ accountNo: row.account_no, userId }, 'portal user linked to account');
      }
      return row.invitation_sent_at ? undefined : row;
    });
    if (!request) return;

    const mailId = invitationMailId(request.id);
    if (await sendOnce(deps.pool, deps.mailer, mailId, async () => {
      // The token is only ever stored hashed; a fresh one is issued for each send attempt.
      const token = randomBytes(32).toString('base64url');
      await deps.pool.query(
        `UPDATE provisioning_requests
         SET invitation_token_hash = $2, invitation_expires_at = now() + make_interval(days => $3)
         WHERE id = $1`,
        [request.id, createHash('sha256').update(token).digest(), INVITATION_VALIDITY_DAYS],
      );
      deps.faults?.beforeSend?.();
      return {
        to: request.email,
        subject: `Your Portway invitation for ${request.account_name}`,
        text: invitationText(request, `${deps.publicUrl}/invitations/${token}`),
      };
    })) deps.faults?.afterSend?.();
    await deps.pool.query('UPDATE provisioning_requests SET invitation_sent_at = now() WHERE id = $1 AND invitation_sent_at IS NULL', [request.id]);
    logger.info({ accountNo: request.account_no, to: request.email }, 'invitation sent');
  });
}
