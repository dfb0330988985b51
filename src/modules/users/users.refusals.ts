import { refusalDomain } from '../../platform/refusal.js';
import type { FieldError } from './passwords.js';

/** Why a mailed link (invitation or reset) cannot be used; the pages say each in words. */
export type LinkState = 'unknown' | 'expired' | 'used';

/** What setting a password from a mailed link refuses; nothing is changed then. */
export interface UsersRefusals {
  /** The new password breaks a rule, each problem on the form field it concerns. */
  'password-invalid': { errors: FieldError[] };
  /** The link cannot be used (any more). */
  'link-unusable': { state: LinkState };
}

export const usersRefusals = refusalDomain<UsersRefusals>('users');

export const passwordInvalid = (errors: FieldError[]) =>
  usersRefusals.refuse('password-invalid', `The new password is refused: ${errors.map((e) => e.message).join('; ')}.`, { errors });

export const linkUnusable = (state: LinkState) => usersRefusals.refuse('link-unusable', `The link is ${state}.`, { state });
