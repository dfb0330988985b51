import { AMOUNT_PLACES, currencyMinorUnit } from '../../platform/money.js';
import { Dec, MAX_INTEGER_DIGITS } from '../../platform/decimal.js';
import { textProblem } from '../../platform/schema/formats.js';
import { isRole, may, type Role } from '../users/index.js';
import type { LimitProblem, PeopleFieldError } from './people.refusals.js';

/** The People rules that need no database: a person's status, who counts as an active Administrator, and what a form may hold. */

/** Active: can sign in and act; Invited: has not chosen a password yet; Deactivated: may not act for the account. */
export const PERSON_STATUSES = ['Active', 'Invited', 'Deactivated'] as const;
export type PersonStatus = (typeof PERSON_STATUSES)[number];

export function statusOf(p: { deactivated: boolean; hasPassword: boolean }): PersonStatus {
  if (p.deactivated) return 'Deactivated';
  return p.hasPassword ? 'Active' : 'Invited';
}

/**
 * Who keeps the account managed: an Administrator who is active. An invited one does not count
 * until they have accepted: an invitation never accepted would leave nobody to manage the account.
 */
export const isActiveAdministrator = (p: { role: Role; deactivated: boolean; hasPassword: boolean }): boolean =>
  p.role === 'Administrator' && statusOf(p) === 'Active';

/** Whether `change` to `subject` would leave `people` (the account's, locked) with no active Administrator. */
export function leavesNoAdministrator<P extends { userId: string; role: Role; deactivated: boolean; hasPassword: boolean }>(
  people: readonly P[], subject: P,
): boolean {
  return isActiveAdministrator(subject) && !people.some((p) => p.userId !== subject.userId && isActiveAdministrator(p));
}

/**
 * Whether `actorUserId`, among `people` (the account's, locked), may still manage them: linked,
 * not deactivated, and in a role with `manage-people`. The page's guard checked this when the
 * request began; this is the same rule again under the lock, where it cannot change until commit.
 */
export function mayStillManage<P extends { userId: string; role: Role; deactivated: boolean }>(people: readonly P[], actorUserId: string): boolean {
  const actor = people.find((p) => p.userId === actorUserId);
  return actor !== undefined && !actor.deactivated && may(actor.role, 'manage-people');
}

/** The column widths of users (migration 1763900000000). */
export const NAME_MAX = 100;
export const EMAIL_MAX = 254;

const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s);

/** An invitation's fields, trimmed, or each problem on its field. */
export function readInvitation(input: { name: string; email: string; role: string }):
  { ok: true; name: string; email: string; role: Role } | { ok: false; errors: PeopleFieldError[] } {
  const name = input.name.trim();
  const email = input.email.trim();
  const errors: PeopleFieldError[] = [];
  if (name === '') errors.push({ field: 'name', message: 'Enter their name' });
  else if ([...name].length > NAME_MAX) errors.push({ field: 'name', message: `Name must be ${NAME_MAX} characters or fewer` });
  else if (textProblem(name)) errors.push({ field: 'name', message: 'Name must contain only letters, digits, spaces and punctuation' });
  if (email === '') errors.push({ field: 'email', message: 'Enter their email address' });
  else if (email.length > EMAIL_MAX) errors.push({ field: 'email', message: `Email address must be ${EMAIL_MAX} characters or fewer` });
  else if (!looksLikeEmail(email) || textProblem(email)) errors.push({ field: 'email', message: 'Enter an email address in the correct format, like name@example.com' });
  if (!isRole(input.role)) errors.push({ field: 'role', message: 'Choose a role' });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, name, email, role: input.role as Role };
}

/**
 * An order limit as typed: empty is none (null); otherwise an amount of 0 or more in the site
 * currency, with at most its minor unit of places (2 for AUD) and thousands separators allowed,
 * as the exact text of numeric(19,4) ("2500.5000").
 */
export function readOrderLimit(typed: string, currency: string): { ok: true; limit: string | null } | { ok: false; problem: LimitProblem } {
  const text = typed.trim().replace(/,/g, '');
  if (text === '') return { ok: true, limit: null };
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (m === null) return { ok: false, problem: 'not-an-amount' };
  if ((m[2] ?? '').length > currencyMinorUnit(currency)) return { ok: false, problem: 'too-many-places' };
  if ((m[1] as string).replace(/^0+(?=\d)/, '').length > MAX_INTEGER_DIGITS) return { ok: false, problem: 'too-large' };
  return { ok: true, limit: new Dec(text).toFixed(AMOUNT_PLACES) };
}
