import type { Queryable } from '../../platform/db/pool.js';
import { deleteActivityBefore, findActivity, insertActivity } from './activity.repository.js';

/**
 * Who did what in an account (issue 27): sign-ins, invitations, role changes, deactivations and
 * reactivations, limit changes, and orders submitted for approval, approved, declined or withdrawn.
 * Each entry is written in the transaction of what it records, so an entry exists exactly when the
 * change does. Kept ACTIVITY_KEPT_MONTHS months, then purged by the housekeeping job.
 */

export const ACTIVITY_KEPT_MONTHS = 13;

export const ACTIVITY_KINDS = [
  'sign-in', 'invitation', 'role-change', 'deactivation', 'reactivation', 'limit-change',
  'submission', 'approval', 'decline', 'withdrawal',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export interface ActivityEntry {
  accountNo: string;
  kind: ActivityKind;
  /** Who acted; none for the system. */
  actorUserId?: string | null;
  /** The user acted on. */
  subjectUserId?: string | null;
  orderNumber?: string | null;
  /**
   * What the page needs to say it, by kind (`ActivityDetails`); the activity page says an entry
   * without a detail it expects in fewer words, never not at all.
   */
  details?: Readonly<Record<string, unknown>>;
}

/**
 * The detail keys each kind is recorded with, agreed between the modules that record them and the
 * activity page (src/portal/activity.view.ts) that says them. Amounts are decimal strings as the
 * money columns give them ("250.0000"), never numbers; a role is a `Role` of the users module.
 * Kinds not named here have no details. Who acted and on whom are the entry's own columns.
 *
 *  - invitation   (subject: the invitee)        { role }          the role given
 *  - role-change  (subject: the user)           { from, to }      roles before and after
 *  - deactivation, reactivation (subject)       {}
 *  - limit-change (subject: the Buyer)          { from, to }      order limits; null = no limit
 *  - submission   (orderNumber)                 { total, currency } the order's total, with tax and freight
 *  - approval, withdrawal (orderNumber)         {}
 *  - decline      (orderNumber)                 { reason }        as the Administrator typed it
 *  - sign-in      (actor: the user)             {}
 */
export interface ActivityDetails {
  'sign-in': Record<string, never>;
  invitation: { role: string };
  'role-change': { from: string; to: string };
  deactivation: Record<string, never>;
  reactivation: Record<string, never>;
  'limit-change': { from: string | null; to: string | null };
  submission: { total: string; currency: string };
  approval: Record<string, never>;
  decline: { reason: string };
  withdrawal: Record<string, never>;
}

export interface RecordedActivity {
  id: string;
  at: Date;
  kind: ActivityKind;
  orderNumber: string | null;
  details: Record<string, unknown>;
  actorName: string | null;
  actorEmail: string | null;
  subjectName: string | null;
  subjectEmail: string | null;
}

/** Records an entry; pass the transaction of the change it records. */
export async function recordActivity(q: Queryable, entry: ActivityEntry): Promise<void> {
  await insertActivity(q, entry);
}

/** Page `page` (from 1) of the account's activity, `size` entries, newest first. */
export async function listActivity(q: Queryable, accountNo: string, page: number, size: number): Promise<{ total: number; entries: RecordedActivity[] }> {
  const { total, rows } = await findActivity(q, accountNo, (page - 1) * size, size);
  return { total, entries: rows };
}

/** Housekeeping: removes what is older than ACTIVITY_KEPT_MONTHS; the number removed. */
export function purgeOldActivity(q: Queryable, keptMonths = ACTIVITY_KEPT_MONTHS): Promise<number> {
  return deleteActivityBefore(q, keptMonths);
}
