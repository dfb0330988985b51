import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RESET_VALIDITY_MINUTES, type PasswordChange } from '../modules/users/index.js';
import {
  RESET_PER_ADDRESS, RESET_PER_EMAIL, SIGN_IN_PER_ADDRESS, overLimit, signInFailed, signInRefused, signInSucceeded,
} from './auth.limits.js';
import { invitationPage, resetPage, sendInvitationProblem, sendResetProblem, tooMany } from './auth.view.js';
import { setFlash, takeFlash } from './flash.js';
import { MESSAGES, sendMessage } from './pages.js';
import type { AuthDeps } from './portal.types.js';
import { passwordRefusal } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import { clearSessionCookie, navigationOf, safeNext, sessionIdOf, sessionUserOf, setSessionCookie } from './session.js';

/**
 * Accounts and sign-in pages: invitation, sign in and out, account choice, forgotten password and
 * reset. Every POST has passed the CSRF check of portal.plugin.ts before it gets here.
 */

/**
 * The path segments whose next segment is a link token (`/invitations/:token`,
 * `/reset-password/:token`): app.ts has the request log write `[token]` there, on every route.
 */
export const LINK_TOKEN_SEGMENTS = Object.freeze(['invitations', 'reset-password'] as const);

// Form bodies: strings only (a repeated field is an array and fails the schema: the "could not be read" page).
const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const CSRF = Text(200);
const NextQuery = Type.Object({ next: Text(2000) });
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
const PasswordForm = Type.Object({ _csrf: CSRF, password: Text(4096), confirmPassword: Text(4096) });
const SignInForm = Type.Object({ _csrf: CSRF, email: Text(1000), password: Text(4096) });
const EmailForm = Type.Object({ _csrf: CSRF, email: Text(1000) });
const AccountForm = Type.Object({ _csrf: CSRF, accountNo: Text(100) });

const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+$/.test(s);

/** The one-time messages of these pages (flash.ts), shown on the page each form lands on. */
export const CONFIRMATIONS = {
  invitationAccepted: 'Your password is set and you are signed in.',
  passwordReset: 'Your password has been changed and you are signed in.',
  signedOut: 'You have signed out.',
} as const;

/**
 * Starts a fresh session (a new id on every sign-in: no fixation) for the preferred account when
 * the user is linked to it, the only one when there is one, or none yet (the choice page).
 * `confirmation` is said once on the page that follows.
 */
async function signIn(
  deps: AuthDeps, request: FastifyRequest, reply: FastifyReply, userId: string, next: string | undefined,
  options: { preferredAccount?: string; confirmation?: string } = {},
) {
  const { preferredAccount, confirmation } = options;
  const { users, cookie } = deps;
  const old = sessionIdOf(request);
  if (old) await users.endSession(old);
  const accounts = await users.accountsOf(userId);
  if (accounts.length === 0) {
    clearSessionCookie(reply, cookie);
    return sendMessage(reply, 403, MESSAGES.noAccount);
  }
  const chosen = accounts.find((a) => a.accountNo === preferredAccount) ?? (accounts.length === 1 ? accounts[0] : undefined);
  setSessionCookie(reply, await users.startSession(userId, chosen?.accountNo ?? null), cookie);
  if (confirmation !== undefined) setFlash(reply, confirmation, cookie.secure);
  if (chosen) return reply.redirect(next ?? '/', 303);
  return reply.redirect(next ? `/choose-account?next=${encodeURIComponent(next)}` : '/choose-account', 303);
}

/** Sign-in form fields missing, each on its field. */
function signInFormErrors(email: string, password: string): FieldError[] {
  const errors: FieldError[] = [];
  if (email === '') errors.push({ field: 'email', message: 'Enter your email address' });
  if (password === '') errors.push({ field: 'password', message: 'Enter your password' });
  return errors;
}

/** Invitation: choose a password, which accepts the invitation and signs in. */
async function invitationRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users } = deps;

  portal.get('/invitations/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const invitation = await users.invitation(request.params.token);
    if (invitation.state !== 'valid') return sendInvitationProblem(reply, invitation.state);
    return invitationPage(reply, request.params.token, invitation);
  });

  portal.post('/invitations/:token', { schema: { hide: true, params: TokenParams, body: PasswordForm } }, async (request, reply) => {
    const { token } = request.params;
    let result: PasswordChange;
    try {
      result = await users.acceptInvitation(token, request.body.password ?? '', request.body.confirmPassword ?? '');
    } catch (error) {
      const refused = passwordRefusal(error);
      if (refused === undefined) throw error;
      if ('link' in refused) return sendInvitationProblem(reply, refused.link);
      const invitation = await users.invitation(token);
      if (invitation.state !== 'valid') return sendInvitationProblem(reply, invitation.state);
      return invitationPage(reply, token, invitation, refused.errors);
    }
    return signIn(deps, request, reply, result.userId, undefined, { preferredAccount: result.accountNo, confirmation: CONFIRMATIONS.invitationAccepted });
  });
}

/** Sign in and out. */
async function signInRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users, rateLimiter } = deps;

  portal.get('/sign-in', { schema: { hide: true, querystring: NextQuery } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    const current = await deps.guards.load(request);
    if (current?.accountNo) return reply.redirect(next ?? '/', 303);
    return sendPage(reply, 'sign-in', { title: 'Sign in', next, notice: takeFlash(request, reply, deps.cookie.secure), csrfToken: reply.generateCsrf() });
  });

  portal.post('/sign-in', { schema: { hide: true, querystring: NextQuery, body: SignInForm } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    const email = (request.body.email ?? '').trim();
    const password = request.body.password ?? '';
    const again = (errors: FieldError[]) => sendPage(reply, 'sign-in', { title: 'Sign in', next, email, errors, csrfToken: reply.generateCsrf() }, 400);
    const errors = signInFormErrors(email, password);
    if (errors.length > 0) return again(errors);
    const emailKey = email.toLowerCase();
    const waitS = await overLimit(rateLimiter, `portal:sign-in:address:${request.ip}`, SIGN_IN_PER_ADDRESS)
      ?? await signInRefused(rateLimiter, emailKey, request.ip);
    if (waitS !== undefined) return tooMany(reply, waitS);
    const user = await users.authenticate(email, password);
    if (!user) {
      await signInFailed(rateLimiter, emailKey, request.ip);
      // One answer for an unknown email and a wrong password, so the page does not tell which emails exist.
      return again([{ field: 'email', message: 'The email address or password is incorrect' }]);
    }
    await signInSucceeded(rateLimiter, emailKey, request.ip);
    return signIn(deps, request, reply, user.userId, next);
  });

  portal.post('/sign-out', { schema: { hide: true, body: Type.Object({ _csrf: CSRF }) } }, async (request, reply) => {
    const id = sessionIdOf(request);
    if (id) await users.endSession(id);
    clearSessionCookie(reply, deps.cookie);
    setFlash(reply, CONFIRMATIONS.signedOut, deps.cookie.secure);
    return reply.redirect('/sign-in', 303);
  });
}

/** A user linked to several accounts chooses one after signing in (and may come back to change it). */
async function accountChoiceRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users } = deps;
  const signedIn = { preHandler: deps.guards.requireSignedIn };

  portal.get('/choose-account', { schema: { hide: true, querystring: NextQuery }, ...signedIn }, async (request, reply) => {
    const user = sessionUserOf(request);
    const accounts = await users.accountsOf(user.userId);
    if (accounts.length === 0) return sendMessage(reply, 403, MESSAGES.noAccount);
    const csrfToken = reply.generateCsrf();
    const flash = takeFlash(request, reply, deps.cookie.secure);
    return sendPage(reply, 'choose-account', { title: 'Choose an account', buyer: navigationOf(user), csrfToken, accounts, next: safeNext(request.query.next), flash });
  });

  portal.post('/choose-account', { schema: { hide: true, querystring: NextQuery, body: AccountForm }, ...signedIn }, async (request, reply) => {
    const user = sessionUserOf(request);
    const next = safeNext(request.query.next);
    const accountNo = request.body.accountNo ?? '';
    if (accountNo !== '' && await users.chooseAccount(sessionIdOf(request) as string, accountNo)) return reply.redirect(next ?? '/', 303);
    const accounts = await users.accountsOf(user.userId);
    return sendPage(reply, 'choose-account', {
      title: 'Choose an account', buyer: navigationOf(user), csrfToken: reply.generateCsrf(), accounts, next,
      errors: [{ field: 'accountNo', message: 'Choose one of your accounts' }],
    }, 400);
  });
}

/** A forgotten password: the reset request, which mails a link to a known email. */
async function forgotPasswordRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users, rateLimiter } = deps;

  portal.get('/forgot-password', { schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, 'forgot-password', { title: 'Reset your password', csrfToken: reply.generateCsrf() }));

  portal.post('/forgot-password', { schema: { hide: true, body: EmailForm } }, async (request, reply) => {
    const email = (request.body.email ?? '').trim();
    if (!looksLikeEmail(email)) {
      const message = email === '' ? 'Enter your email address' : 'Enter an email address in the correct format, like name@example.com';
      return sendPage(reply, 'forgot-password', { title: 'Reset your password', email, errors: [{ field: 'email', message }], csrfToken: reply.generateCsrf() }, 400);
    }
    const waitS = await overLimit(rateLimiter, `portal:reset:address:${request.ip}`, RESET_PER_ADDRESS);
    if (waitS !== undefined) return tooMany(reply, waitS);
    // Over the per-email quota the page is the same and no mail goes: no mail bombing, no oracle.
    if ((await rateLimiter.consume(`portal:reset:email:${email.toLowerCase()}`, RESET_PER_EMAIL)).allowed) {
      await users.requestPasswordReset(email);
    }
    return sendPage(reply, 'forgot-password-sent', { title: 'Check your email', email, validMinutes: RESET_VALIDITY_MINUTES });
  });
}

/** The reset mail's link: choose a new password, which ends every session of the user and signs in. */
async function resetPasswordRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users } = deps;

  portal.get('/reset-password/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const reset = await users.passwordReset(request.params.token);
    if (reset.state !== 'valid') return sendResetProblem(reply, reset.state);
    return resetPage(reply, request.params.token, reset.email);
  });

  portal.post('/reset-password/:token', { schema: { hide: true, params: TokenParams, body: PasswordForm } }, async (request, reply) => {
    const { token } = request.params;
    let result: PasswordChange;
    try {
      result = await users.resetPassword(token, request.body.password ?? '', request.body.confirmPassword ?? '');
    } catch (error) {
      const refused = passwordRefusal(error);
      if (refused === undefined) throw error;
      if ('link' in refused) return sendResetProblem(reply, refused.link);
      const reset = await users.passwordReset(token);
      if (reset.state !== 'valid') return sendResetProblem(reply, reset.state);
      return resetPage(reply, token, reset.email, refused.errors);
    }
    // Every session of the user has ended with the change; this browser starts a new one.
    return signIn(deps, request, reply, result.userId, undefined, { confirmation: CONFIRMATIONS.passwordReset });
  });
}

export async function authRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  await invitationRoutes(app, deps);
  await signInRoutes(app, deps);
  await accountChoiceRoutes(app, deps);
  await forgotPasswordRoutes(app, deps);
  await resetPasswordRoutes(app, deps);
}
