import { withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { recordActivity } from '../activity/index.js';
import { checkNewPassword, hashPassword, verifyPassword, type FieldError } from './passwords.js';
import { enqueuePasswordResetRequest } from './password-reset.job.js';
import {
  accountsOfUser, deleteOldPasswordResets as deleteOldResetRows, findAccountUser, findDespatchNotices, findInvitation, findPasswordReset,
  findUserByEmail, markInvitationAccepted, markResetsUsed, setLastSignIn, setPassword, updateDespatchNotices, type LinkedAccount,
} from './users.repository.js';
import {
  deleteAccountSessions, deleteEndedSessions as deleteEndedSessionRows, deleteSession, findLiveSession, insertSession, setSessionAccount, touchSession,
} from './sessions.repository.js';
import type { Role } from './roles.js';
import { isTokenShaped, newToken, tokenHash } from './tokens.js';
import { linkUnusable, passwordInvalid, type LinkState } from './users.refusals.js';

export type { FieldError, LinkedAccount, LinkState };

export type Invitation =
  | { state: 'valid'; email: string; accountNo: string; accountName: string }
  | { state: LinkState };

/** A password set from a mailed link; otherwise the `password-invalid` or `link-unusable` refusal (users.refusals.ts). */
export interface PasswordChange { userId: string; accountNo?: string }

export interface SessionLifetimes { idleMinutes: number; maxAgeMinutes: number }

export interface Buyer {
  userId: string;
  email: string;
  name: string;
  /** Null while a user linked to several accounts has not chosen one, or the account is no longer theirs (or they are deactivated in it). */
  accountNo: string | null;
  accountName: string | null;
  /** The user's role in that account; null with accountNo. */
  role: Role | null;
}

/**
 * Portal users' credentials and sessions: invitations accepted, sign-in, password resets. Holds
 * the rules (single use, expiry, password length, sessions ended on a password change); the portal
 * only turns them into pages and cookies.
 */
export function createUsersService(pool: Pool, lifetimes: SessionLifetimes) {
  async function invitation(token: string): Promise<Invitation> {
    if (!isTokenShaped(token)) return { state: 'unknown' };
    const row = await findInvitation(pool, tokenHash(token));
    if (!row || !row.user_id) return { state: 'unknown' };
    if (row.accepted) return { state: 'used' };
    if (row.expired) return { state: 'expired' };
    return { state: 'valid', email: row.email, accountNo: row.account_no, accountName: row.account_name };
  }

  /**
   * Accepting sets (or replaces) the password: the link reached the address, as a reset link does,
   * so it is as strong a proof; like a reset, it ends the user's other sessions.
   */
  async function acceptInvitation(token: string, password: string, confirmation: string): Promise<PasswordChange> {
    // The password may not contain the invitee's email: read it first (the transaction checks the link again).
    const invited = isTokenShaped(token) ? await findInvitation(pool, tokenHash(token)) : undefined;
    const errors = checkNewPassword(password, confirmation, { email: invited?.email });
    if (errors.length > 0) throw passwordInvalid(errors);
    if (!isTokenShaped(token)) throw linkUnusable('unknown');
    // Hashed before the transaction: the row lock is not held for the hash's 20-odd milliseconds.
    const passwordHash = await hashPassword(password);
    return withTransaction(pool, async (tx): Promise<PasswordChange> => {
      const row = await findInvitation(tx, tokenHash(token), true);
      if (!row || !row.user_id) throw linkUnusable('unknown');
      if (row.accepted) throw linkUnusable('used');
      if (row.expired) throw linkUnusable('expired');
      await setPassword(tx, row.user_id, passwordHash);
      await markInvitationAccepted(tx, row.request_id);
      return { userId: row.user_id, accountNo: row.account_no };
    });
  }

  /** The user whose email and password these are, or undefined; as slow for an unknown email as for a wrong password. */
  async function authenticate(email: string, password: string): Promise<{ userId: string } | undefined> {
    const user = email.length <= 254 ? await findUserByEmail(pool, email) : undefined;
    const ok = await verifyPassword(user?.password_hash, password);
    return ok && user ? { userId: user.id } : undefined;
  }

  /**
   * Queues the request, known email or not: the job records a reset and mails it for a known one.
   * Looking the user up here would make the answer slower for a known email than for an unknown one.
   */
  async function requestPasswordReset(email: string): Promise<void> {
    if (email.length > 254) return;
    await enqueuePasswordResetRequest(pool, email);
  }

  async function passwordReset(token: string): Promise<{ state: 'valid'; email: string } | { state: LinkState }> {
    if (!isTokenShaped(token)) return { state: 'unknown' };
    const row = await findPasswordReset(pool, tokenHash(token));
    if (!row) return { state: 'unknown' };
    if (row.used) return { state: 'used' };
    if (row.expired) return { state: 'expired' };
    return { state: 'valid', email: row.email };
  }

  /** Sets the new password, uses every open reset link of the user and ends all their sessions. */
  async function resetPassword(token: string, password: string, confirmation: string): Promise<PasswordChange> {
    const reset = isTokenShaped(token) ? await findPasswordReset(pool, tokenHash(token)) : undefined;
    const errors = checkNewPassword(password, confirmation, { email: reset?.email });
    if (errors.length > 0) throw passwordInvalid(errors);
    if (!isTokenShaped(token)) throw linkUnusable('unknown');
    const passwordHash = await hashPassword(password);
    return withTransaction(pool, async (tx): Promise<PasswordChange> => {
      const row = await findPasswordReset(tx, tokenHash(token), true);
      if (!row) throw linkUnusable('unknown');
      if (row.used) throw linkUnusable('used');
      if (row.expired) throw linkUnusable('expired');
      await setPassword(tx, row.user_id, passwordHash);
      await markResetsUsed(tx, row.user_id);
      return { userId: row.user_id };
    });
  }

  const accountsOf = (userId: string): Promise<LinkedAccount[]> => accountsOfUser(pool, userId);

  /**
   * A user starts acting for an account (signing in, after an invitation or a reset, or choosing
   * one): their last sign-in and the account's activity, in the transaction of the session's write.
   */
  async function signedIn(tx: Queryable, userId: string, accountNo: string): Promise<void> {
    await setLastSignIn(tx, userId);
    await recordActivity(tx, { accountNo, kind: 'sign-in', actorUserId: userId });
  }

  /**
   * A new session; the returned id goes into the cookie and is never stored as such. With an
   * account (the caller chose one of `accountsOf`) it is a sign-in to it; without one, the sign-in
   * is recorded when the user chooses (chooseAccount).
   */
  async function startSession(userId: string, accountNo: string | null): Promise<string> {
    const id = newToken();
    await withTransaction(pool, async (tx) => {
      await insertSession(tx, tokenHash(id), userId, accountNo, lifetimes.maxAgeMinutes);
      if (accountNo !== null) await signedIn(tx, userId, accountNo);
    });
    return id;
  }

  /** The buyer of a live session (not idle too long, not past its absolute end), sliding its idle expiry. */
  async function buyerOf(sessionId: string): Promise<Buyer | undefined> {
    if (!isTokenShaped(sessionId)) return undefined;
    const idHash = tokenHash(sessionId);
    const row = await findLiveSession(pool, idHash, lifetimes.idleMinutes);
    if (!row) return undefined;
    if (row.stale) await touchSession(pool, idHash);
    const chosen = row.account_name !== null && row.role !== null;
    return {
      userId: row.user_id, email: row.email, name: row.name,
      accountNo: chosen ? row.account_no : null, accountName: chosen ? row.account_name : null, role: chosen ? row.role : null,
    };
  }

  /**
   * The session acts for `accountNo` from now on, when the user is linked to it and active in it;
   * false otherwise. Choosing another account than the session had is a sign-in to it; choosing
   * the same one again records nothing.
   */
  async function chooseAccount(sessionId: string, accountNo: string): Promise<boolean> {
    if (!isTokenShaped(sessionId)) return false;
    return withTransaction(pool, async (tx) => {
      const set = await setSessionAccount(tx, tokenHash(sessionId), accountNo);
      if (set === undefined) return false;
      if (set.changed) await signedIn(tx, set.userId, accountNo);
      return true;
    });
  }

  async function endSession(sessionId: string): Promise<void> {
    if (isTokenShaped(sessionId)) await deleteSession(pool, tokenHash(sessionId));
  }

  /** The user's mail preferences (the account page's form); despatch notices are on unless turned off. */
  async function mailPreferences(userId: string): Promise<MailPreferences> {
    return { despatchNotices: (await findDespatchNotices(pool, userId)) ?? true };
  }

  async function setMailPreferences(userId: string, preferences: MailPreferences): Promise<void> {
    await updateDespatchNotices(pool, userId, preferences.despatchNotices);
  }

  return {
    invitation, acceptInvitation, authenticate, requestPasswordReset, passwordReset, resetPassword,
    accountsOf, startSession, buyerOf, chooseAccount, endSession, mailPreferences, setMailPreferences,
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

/** What a user chose to be mailed. Per user, whichever account they act for. */
export interface MailPreferences { despatchNotices: boolean }

/** Whom mail about an account's order goes to: the user who placed it, with their preferences. */
export interface MailRecipient extends MailPreferences { email: string; name: string }

/**
 * The user as a recipient of mail about the account's orders, or undefined when the user is no
 * longer linked to the account: someone who can no longer see its orders in the portal is not
 * mailed about them either.
 */
export async function mailRecipient(db: Queryable, userId: string, accountNo: string): Promise<MailRecipient | undefined> {
  const row = await findAccountUser(db, userId, accountNo);
  return row === undefined ? undefined : { email: row.email, name: row.name, despatchNotices: row.despatch_notices };
}

/**
 * Ends, at once, every session in which the user acts for the account (their membership was
 * deactivated): their next request goes to sign-in. A session with no account chosen yet stays;
 * it can no longer choose this account. Pass the transaction of the change. The number ended.
 */
export function endAccountSessions(db: Queryable, userId: string, accountNo: string): Promise<number> {
  return deleteAccountSessions(db, userId, accountNo);
}

/* ---- Housekeeping: rows whose use has ended ---- */

/** Sessions a request would be refused with: past their idle limit (`idleMinutes`) or their end; the number removed. */
export function deleteEndedSessions(db: Queryable, idleMinutes: number): Promise<number> {
  return deleteEndedSessionRows(db, idleMinutes);
}

/** Password reset rows asked for more than `keptDays` ago (a link works for an hour); the number removed. */
export function deleteOldPasswordResets(db: Queryable, keptDays: number): Promise<number> {
  return deleteOldResetRows(db, keptDays);
}
