import { refusalDomain } from '../../platform/refusal.js';
import type { Role } from '../users/index.js';

/** A problem with one field of a People form, in words, on the field it concerns. */
export interface PeopleFieldError { field: 'name' | 'email' | 'role'; message: string }

/** Why a limit typed for a Buyer is refused. */
export type LimitProblem = 'not-an-amount' | 'too-many-places' | 'too-large';

/** What the People rules refuse; nothing is changed then. */
export interface PeopleRefusals {
  /**
   * The one making the change is, once the account's people are locked, no longer an active
   * Administrator of it (another Administrator changed their role or deactivated them since their
   * page was loaded); `role` is theirs now, null when they are no longer linked at all.
   */
  'actor-not-allowed': { role: Role | null; deactivated: boolean };
  /** The user is not one of the account's people (or the id is no user's). */
  'person-not-found': { userId: string };
  /** A form's name, email or role breaks a rule (an invitation, a role change), each problem on its field. */
  'fields-invalid': { errors: PeopleFieldError[] };
  /** The email's user is already one of the account's people (active, invited or deactivated). */
  'already-member': { email: string; name: string };
  /** The change would leave the account with no active Administrator. */
  'last-administrator': { change: 'demote' | 'deactivate'; self: boolean };
  /** "Resend invitation" for someone who has accepted (they can sign in already). */
  'invitation-accepted': { name: string };
  /** "Resend invitation" for someone deactivated: reactivate them first. */
  'person-deactivated': { name: string };
  /** An order limit is for Buyers only. */
  'limit-not-for-role': { role: string };
  /** The limit typed is not an amount the site currency can have. */
  'limit-invalid': { problem: LimitProblem; minorUnit: number; currency: string };
}

export const peopleRefusals = refusalDomain<PeopleRefusals>('people');

export const actorNotAllowed = (role: Role | null, deactivated: boolean) =>
  peopleRefusals.refuse('actor-not-allowed', deactivated || role === null ? 'You may no longer act for this account.' : `You are a ${role} of this account now, so you cannot manage its people.`, { role, deactivated });

export const personNotFound = (userId: string) => peopleRefusals.refuse('person-not-found', 'No such person in this account.', { userId });

export const fieldsInvalid = (errors: PeopleFieldError[]) =>
  peopleRefusals.refuse('fields-invalid', `Refused: ${errors.map((e) => e.message).join('; ')}.`, { errors });

export const alreadyMember = (email: string, name: string) =>
  peopleRefusals.refuse('already-member', `${email} is already one of the account's people.`, { email, name });

export const lastAdministrator = (change: 'demote' | 'deactivate', self: boolean) =>
  peopleRefusals.refuse('last-administrator', 'The account must keep at least one active Administrator.', { change, self });

export const invitationAccepted = (name: string) =>
  peopleRefusals.refuse('invitation-accepted', `${name} has accepted their invitation already.`, { name });

export const personDeactivated = (name: string) =>
  peopleRefusals.refuse('person-deactivated', `${name} is deactivated.`, { name });

export const limitNotForRole = (role: string) =>
  peopleRefusals.refuse('limit-not-for-role', `An order limit is for Buyers only, not a ${role}.`, { role });

export const limitInvalid = (problem: LimitProblem, minorUnit: number, currency: string) =>
  peopleRefusals.refuse('limit-invalid', `The order limit is refused (${problem}).`, { problem, minorUnit, currency });
