import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { defineHandler, enqueue, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import { sendOnce, type Mailer } from '../../platform/mail.js';
import { tokenHash } from './tokens.js';
import { findUserByEmail, insertPasswordReset } from './users.repository.js';

/**
 * A "forgot password" request, as the page records it: the email only, whether or not a user has
 * it. The page's request enqueues this one job and does nothing else, so it does the same work,
 * and takes the same time, for a known and an unknown email. The job looks the user up; for a
 * known one it records the reset and enqueues its mail (`passwordReset`) in one transaction, so a
 * retry after a failure records nothing twice. For an unknown one it does nothing.
 */
export const passwordResetRequest = {
  name: 'users.password-reset-request',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), email: Type.String({ minLength: 1, maxLength: 254 }) }),
  maxAttempts: 10,
} satisfies JobType;

export async function enqueuePasswordResetRequest(db: Queryable, email: string): Promise<void> {
  await enqueue(db, passwordResetRequest, [{ email }]);
}

export function passwordResetRequestHandler(deps: { pool: Pool }): JobHandler {
  return defineHandler(passwordResetRequest, async (payload) => {
    await withTransaction(deps.pool, async (tx) => {
      const user = await findUserByEmail(tx, payload.email);
      if (!user) return;
      const resetId = await insertPasswordReset(tx, user.id);
      await enqueuePasswordReset(tx, resetId);
    });
  });
}

/**
 * Mails a password reset link. Enqueued in the transaction that records the reset, so a mail
 * server that is down only delays the link.
 */
export const passwordReset = {
  name: 'users.password-reset',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), resetId: Type.String({ pattern: '^[0-9]+$' }) }),
  maxAttempts: 10,
  jobKey: (p: { resetId: string }) => `users.password-reset:${p.resetId}`,
} satisfies JobType;

export const RESET_VALIDITY_MINUTES = 60;

export const passwordResetMailId = (resetId: string) => `password-reset-${resetId}`;

export async function enqueuePasswordReset(tx: Queryable, resetId: string): Promise<void> {
  await enqueue(tx, passwordReset, [{ resetId }]);
}

export interface PasswordResetDeps {
  pool: Pool;
  mailer: Mailer;
  publicUrl: string;
}

/**
 * As the invitation job: a fresh token per send attempt (only its hash is stored, every one kept in
 * password_reset_links, so a mail sent by an attempt that died before recording it keeps a working
 * link), one mail per request.
 */
export function passwordResetHandler(deps: PasswordResetDeps): JobHandler {
  return defineHandler(passwordReset, async (payload, { logger }) => {
    const reset = await withTransaction(deps.pool, async (tx) => {
      const { rows } = await tx.query<{ id: string; email: string; name: string; sent_at: string | null; used_at: string | null }>(
        `SELECT r.id::text, u.email, u.name, r.sent_at, r.used_at
         FROM password_resets r JOIN users u ON u.id = r.user_id WHERE r.id = $1 FOR UPDATE OF r`,
        [payload.resetId],
      );
      const row = rows[0];
      return row && !row.sent_at && !row.used_at ? row : undefined;
    });
    if (!reset) return;
    const mailId = passwordResetMailId(reset.id);
    await sendOnce(deps.pool, deps.mailer, mailId, async () => {
      const token = randomBytes(32).toString('base64url');
      await deps.pool.query(
        `UPDATE password_resets SET token_hash = $2, expires_at = now() + make_interval(mins => $3) WHERE id = $1`,
        [reset.id, tokenHash(token), RESET_VALIDITY_MINUTES],
      );
      return {
        to: reset.email,
        subject: 'Reset your Portway password',
        text: [
          `Hello ${reset.name},`,
          '',
          'Someone asked to reset the password of your Portway account. If it was you, choose a new password here',
          `(the link works once, for ${RESET_VALIDITY_MINUTES} minutes):`,
          `${deps.publicUrl}/reset-password/${token}`,
          '',
          'If it was not you, ignore this mail: your password stays as it is.',
        ].join('\n'),
      };
    });
    await deps.pool.query('UPDATE password_resets SET sent_at = now() WHERE id = $1 AND sent_at IS NULL', [reset.id]);
    logger.info({ resetId: reset.id }, 'password reset mail sent');
  });
}
