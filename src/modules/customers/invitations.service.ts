import type { Queryable } from '../../platform/db/pool.js';
import { enqueue } from '../../platform/jobs/job.js';
import { findLinkedUser, insertLink, upsertLinkedRequest, upsertUser } from './invitations.repository.js';
import { provisionUser } from './provision-user.job.js';

/**
 * Invitations raised by an Administrator on the People page, through the same provisioning
 * requests and job as the ERP's `admin` (provision-user.job.ts). Here the user is created and
 * linked with its role at once, in the caller's transaction (so the person is listed, and the
 * caller's rules checked, in the same transaction); the job only sends the mail, exactly once per
 * round: an invitation, or "you have been added" to a user who already has a password.
 */

export interface InvitationAsked {
  accountNo: string;
  email: string;
  name: string;
  /** One of users' ROLES; the column's check refuses any other. */
  role: string;
  /** The Administrator inviting. */
  invitedBy: string;
}

export type InvitationRecorded =
  /** Linked and queued for its mail; `hasPassword`: they can sign in already, so the mail says they were added. */
  | { linked: true; userId: string; hasPassword: boolean }
  /** The email's user is linked to the account already: nothing was done. */
  | { linked: false; userId: string };

/** Creates the user for the email if new (any letter case is the same user), links them with the role and queues the mail. */
export async function recordInvitation(tx: Queryable, asked: InvitationAsked): Promise<InvitationRecorded> {
  const user = await upsertUser(tx, asked.email, asked.name);
  if (!(await insertLink(tx, user.id, asked.accountNo, asked.role))) return { linked: false, userId: user.id };
  const requestId = await upsertLinkedRequest(tx, { ...asked, userId: user.id });
  await enqueue(tx, provisionUser, [{ requestId }]);
  return { linked: true, userId: user.id, hasPassword: user.has_password };
}

/**
 * "Resend invitation": a new round of the user's request for the account (one is made for a link
 * that has none): the token of the earlier mail is dropped at once, so its link stops working, and
 * the job mails a new one. False when the user is not linked to the account.
 */
export async function recordInvitationAgain(tx: Queryable, r: { accountNo: string; userId: string; invitedBy: string }): Promise<boolean> {
  const user = await findLinkedUser(tx, r.userId, r.accountNo);
  if (user === undefined) return false;
  const requestId = await upsertLinkedRequest(tx, { accountNo: r.accountNo, email: user.email, name: user.name, role: user.role, invitedBy: r.invitedBy, userId: r.userId });
  await enqueue(tx, provisionUser, [{ requestId }]);
  return true;
}
