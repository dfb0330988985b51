import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RateLimiter, RateLimitPolicy } from '../platform/http/rate-limit.js';
import { INVITATION_VALIDITY_DAYS } from '../modules/customers/index.js';
import {
  PASSWORD_MAX, PASSWORD_MIN, RESET_VALIDITY_MINUTES, type Invitation, type LinkState, type PasswordChange, type UsersService,
} from '../modules/users/index.js';
import { MESSAGES, sendMessage, tooManyAttempts, type Message } from './pages.js';
import { passwordRefusal } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import {
  clearSessionCookie, safeNext, sessionIdOf, sessionUserOf, setSessionCookie, type CookiePolicy, type sessionGuards,
} from './session.js';

/**
 * Accounts and sign-in pages: invitation, sign in and out, account choice, forgotten password and
 * reset. Every POST has passed the CSRF check of portal.plugin.ts before it gets here.
 */

/**
 * The path segments whose next segment is a link token (`/invitations/:token`,
 * `/reset-password/:token`): app.ts has the request log write `[token]` there, on every route.
 */
export const LINK_TOKEN_SEGMENTS = Object.freeze(['invitations', 'reset-password'] as const);

/**
 * Sign-in limits that slow guessing without letting anyone lock a buyer out (OWASP Authentication
 * Cheat Sheet: count failures per account and per source, never refuse the account as a whole):
 * - every attempt per client address (spraying many emails from one address);
 * - failed attempts per email and address pair (guessing one account from one address);
 * - failed attempts per email from every address: over the limit the account is under attack, and
 *   an address that has failed on it is refused while one that has not (the buyer at their desk)
 *   is still heard, so the right password signs in;
 * - a ceiling of failed attempts per email from every address: over it only an address that signed
 *   in to that email in the last 14 days is heard, which bounds a guess spread over many addresses.
 * Counters exist alike for unknown emails, so a refusal says nothing about which emails have users.
 */
export const SIGN_IN_PER_ADDRESS: RateLimitPolicy = Object.freeze({ limit: 30, windowS: 900 });
export const SIGN_IN_FAILURES_PER_PAIR: RateLimitPolicy = Object.freeze({ limit: 10, windowS: 900 });
export const SIGN_IN_FAILURES_PER_EMAIL: RateLimitPolicy = Object.freeze({ limit: 10, windowS: 900 });
export const SIGN_IN_FAILURES_CEILING: RateLimitPolicy = Object.freeze({ limit: 100, windowS: 3600 });
/**
 * An address that signed in to an email (a marker, counted once per sign-in; the limit is never
 * reached). 14 days: the per-process counters expire by a timer, and Node's timers cannot wait
 * beyond 24.8 days (a longer one fires at once).
 */
const SIGN_IN_KNOWN_ADDRESS: RateLimitPolicy = Object.freeze({ limit: 1_000_000, windowS: 14 * 86_400 });
/** Reset requests: per address answers 429; per email silently sends no more mail (the answer must not differ). */
export const RESET_PER_ADDRESS: RateLimitPolicy = Object.freeze({ limit: 10, windowS: 3600 });
export const RESET_PER_EMAIL: RateLimitPolicy = Object.freeze({ limit: 3, windowS: 3600 });

export interface AuthRoutesDeps {
  users: UsersService;
  rateLimiter: RateLimiter;
  cookie: CookiePolicy;
  guards: ReturnType<typeof sessionGuards>;
}

// Form bodies: strings only (a repeated field is an array and fails the schema: the "could not be read" page).
const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const CSRF = Text(200);
const NextQuery = Type.Object({ next: Text(2000) });
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
const PasswordForm = Type.Object({ _csrf: CSRF, password: Text(4096), confirmPassword: Text(4096) });
const SignInForm = Type.Object({ _csrf: CSRF, email: Text(1000), password: Text(4096) });
const EmailForm = Type.Object({ _csrf: CSRF, email: Text(1000) });
const AccountForm = Type.Object({ _csrf: CSRF, accountNo: Text(100) });

const PASSWORD_HINT = `Use ${PASSWORD_MIN} to ${PASSWORD_MAX} characters. A few unrelated words are easy to remember and hard to guess. Not a commonly used password, your email address or the site’s name.`;
const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+$/.test(s);

function invitationProblem(state: LinkState): Message {
  switch (state) {
    case 'expired': return {
      title: 'This invitation has expired',
      paragraphs: [
        `Invitation links work for ${INVITATION_VALIDITY_DAYS} days. You can still choose your password:`
        + ' ask for a password reset link with the email address the invitation was sent to.',
        'Or ask your company’s Portway administrator to contact us for a new invitation.',
      ],
      linkHref: '/forgot-password', linkText: 'Get a link to choose your password',
    };
    case 'used': return {
      title: 'This invitation has already been used',
      paragraphs: ['Each invitation link works once. Sign in with the email address and the password you chose.'],
      linkHref: '/sign-in', linkText: 'Sign in',
    };
    default: return {
      title: 'This invitation link is not valid',
      paragraphs: [
        'Check that you opened the whole link from the invitation email. A newer invitation email replaces an older one.',
        'If it still does not work, ask your company’s Portway administrator to contact us for a new invitation.',
      ],
      linkHref: '/sign-in', linkText: 'Sign in if you already have a password',
    };
  }
}

function resetProblem(state: LinkState): Message {
  switch (state) {
    case 'expired': return {
      title: 'This password reset link has expired',
      paragraphs: [`Reset links work for ${RESET_VALIDITY_MINUTES} minutes. Ask for a new one.`],
      linkHref: '/forgot-password', linkText: 'Get a new link',
    };
    case 'used': return {
      title: 'This password reset link has already been used',
      paragraphs: ['Each link works once, and choosing a new password ends every older link. Sign in, or ask for a new link.'],
      linkHref: '/forgot-password', linkText: 'Get a new link',
    };
    default: return {
      title: 'This password reset link is not valid',
      paragraphs: ['Check that you opened the whole link from the email, or ask for a new one.'],
      linkHref: '/forgot-password', linkText: 'Get a new link',
    };
  }
}

/** Unknown links are 404; expired or used ones 410 (they existed and are gone for good). */
const statusOf = (state: LinkState) => (state === 'unknown' ? 404 : 410);

export async function authRoutes(app: FastifyInstance, deps: AuthRoutesDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users, rateLimiter, cookie, guards } = deps;

  /**
   * Starts a fresh session (a new id on every sign-in: no fixation) for the preferred account when
   * the user is linked to it, the only one when there is one, or none yet (the choice page).
   */
  async function signIn(request: FastifyRequest, reply: FastifyReply, userId: string, next: string | undefined, preferredAccount?: string) {
    const old = sessionIdOf(request);
    if (old) await users.endSession(old);
    const accounts = await users.accountsOf(userId);
    if (accounts.length === 0) {
      clearSessionCookie(reply, cookie);
      return sendMessage(reply, 403, MESSAGES.noAccount);
    }
    const chosen = accounts.find((a) => a.accountNo === preferredAccount) ?? (accounts.length === 1 ? accounts[0] : undefined);
    setSessionCookie(reply, await users.startSession(userId, chosen?.accountNo ?? null), cookie);
    if (chosen) return reply.redirect(next ?? '/', 303);
    return reply.redirect(next ? `/choose-account?next=${encodeURIComponent(next)}` : '/choose-account', 303);
  }

  function tooMany(reply: FastifyReply, resetS: number): FastifyReply {
    reply.header('retry-after', String(resetS));
    return sendMessage(reply, 429, tooManyAttempts(resetS));
  }

  async function limited(reply: FastifyReply, key: string, policy: RateLimitPolicy): Promise<FastifyReply | undefined> {
    const decision = await rateLimiter.consume(key, policy);
    return decision.allowed ? undefined : tooMany(reply, decision.resetS);
  }

  /** The counters of one email (lower-cased) and client address; see SIGN_IN_FAILURES_PER_EMAIL. */
  function signInKeys(email: string, address: string) {
    return {
      pair: `portal:sign-in:failed:${email}:${address}`,
      email: `portal:sign-in:failed:${email}`,
      known: `portal:sign-in:known:${email}:${address}`,
    };
  }

  /** The 429 page when this address may not try this email now, or undefined; counts nothing. */
  async function signInRefused(reply: FastifyReply, email: string, address: string): Promise<FastifyReply | undefined> {
    const keys = signInKeys(email, address);
    const pair = await rateLimiter.peek(keys.pair, SIGN_IN_FAILURES_PER_PAIR);
    if (pair.count >= SIGN_IN_FAILURES_PER_PAIR.limit) return tooMany(reply, pair.resetS);
    const known = async () => (await rateLimiter.peek(keys.known, SIGN_IN_KNOWN_ADDRESS)).count > 0;
    const onEmail = await rateLimiter.peek(keys.email, SIGN_IN_FAILURES_PER_EMAIL);
    if (onEmail.count >= SIGN_IN_FAILURES_PER_EMAIL.limit && pair.count > 0 && !(await known())) {
      return tooMany(reply, Math.min(onEmail.resetS, pair.resetS));
    }
    const ceiling = await rateLimiter.peek(keys.email, SIGN_IN_FAILURES_CEILING);
    if (ceiling.count >= SIGN_IN_FAILURES_CEILING.limit && !(await known())) return tooMany(reply, ceiling.resetS);
    return undefined;
  }

  async function signInFailed(email: string, address: string): Promise<void> {
    const keys = signInKeys(email, address);
    await rateLimiter.consume(keys.pair, SIGN_IN_FAILURES_PER_PAIR);
    await rateLimiter.consume(keys.email, SIGN_IN_FAILURES_PER_EMAIL);
    await rateLimiter.consume(keys.email, SIGN_IN_FAILURES_CEILING);
  }

  /** The choose-password page of an invitation link; with errors, the form sent back (400). */
  function invitationPage(reply: FastifyReply, token: string, invitation: Extract<Invitation, { state: 'valid' }>, errors?: FieldError[]): FastifyReply {
    return sendPage(reply, 'choose-password', {
      title: 'Choose your password', heading: 'Choose your password', submit: 'Accept the invitation',
      action: `/invitations/${token}`, passwordHint: PASSWORD_HINT, csrfToken: reply.generateCsrf(), errors, ...invitation,
    }, errors === undefined ? 200 : 400);
  }

  /** The choose-password page of a reset link; with errors, the form sent back (400). */
  function resetPage(reply: FastifyReply, token: string, email: string, errors?: FieldError[]): FastifyReply {
    return sendPage(reply, 'choose-password', {
      title: 'Choose a new password', heading: 'Choose a new password', submit: 'Change the password',
      action: `/reset-password/${token}`, passwordHint: PASSWORD_HINT, csrfToken: reply.generateCsrf(), email, errors,
    }, errors === undefined ? 200 : 400);
  }

  // Invitation: choose a password, which accepts the invitation and signs in.
  portal.get('/invitations/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const invitation = await users.invitation(request.params.token);
    if (invitation.state !== 'valid') return sendMessage(reply, statusOf(invitation.state), invitationProblem(invitation.state));
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
      if ('link' in refused) return sendMessage(reply, statusOf(refused.link), invitationProblem(refused.link));
      const invitation = await users.invitation(token);
      if (invitation.state !== 'valid') return sendMessage(reply, statusOf(invitation.state), invitationProblem(invitation.state));
      return invitationPage(reply, token, invitation, refused.errors);
    }
    return signIn(request, reply, result.userId, undefined, result.accountNo);
  });

  portal.get('/sign-in', { schema: { hide: true, querystring: NextQuery } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    const current = await guards.load(request);
    if (current?.accountNo) return reply.redirect(next ?? '/', 303);
    return sendPage(reply, 'sign-in', { title: 'Sign in', next, csrfToken: reply.generateCsrf() });
  });

  portal.post('/sign-in', { schema: { hide: true, querystring: NextQuery, body: SignInForm } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    const email = (request.body.email ?? '').trim();
    const password = request.body.password ?? '';
    const again = (errors: FieldError[]) => sendPage(reply, 'sign-in', { title: 'Sign in', next, email, errors, csrfToken: reply.generateCsrf() }, 400);
    const errors: FieldError[] = [];
    if (email === '') errors.push({ field: 'email', message: 'Enter your email address' });
    if (password === '') errors.push({ field: 'password', message: 'Enter your password' });
    if (errors.length > 0) return again(errors);
    const emailKey = email.toLowerCase();
    const refused = await limited(reply, `portal:sign-in:address:${request.ip}`, SIGN_IN_PER_ADDRESS)
      ?? await signInRefused(reply, emailKey, request.ip);
    if (refused) return refused;
    const user = await users.authenticate(email, password);
    if (!user) {
      await signInFailed(emailKey, request.ip);
      // One answer for an unknown email and a wrong password, so the page does not tell which emails exist.
      return again([{ field: 'email', message: 'The email address or password is incorrect' }]);
    }
    await rateLimiter.consume(signInKeys(emailKey, request.ip).known, SIGN_IN_KNOWN_ADDRESS);
    return signIn(request, reply, user.userId, next);
  });

  portal.post('/sign-out', { schema: { hide: true, body: Type.Object({ _csrf: CSRF }) } }, async (request, reply) => {
    const id = sessionIdOf(request);
    if (id) await users.endSession(id);
    clearSessionCookie(reply, cookie);
    return reply.redirect('/sign-in', 303);
  });

  // A user linked to several accounts chooses one after signing in (and may come back to change it).
  portal.get('/choose-account', { schema: { hide: true, querystring: NextQuery }, preHandler: guards.requireSignedIn }, async (request, reply) => {
    const user = sessionUserOf(request);
    const accounts = await users.accountsOf(user.userId);
    if (accounts.length === 0) return sendMessage(reply, 403, MESSAGES.noAccount);
    const csrfToken = reply.generateCsrf();
    return sendPage(reply, 'choose-account', { title: 'Choose an account', buyer: user, csrfToken, accounts, next: safeNext(request.query.next) });
  });

  portal.post('/choose-account', {
    schema: { hide: true, querystring: NextQuery, body: AccountForm }, preHandler: guards.requireSignedIn,
  }, async (request, reply) => {
    const user = sessionUserOf(request);
    const next = safeNext(request.query.next);
    const accountNo = request.body.accountNo ?? '';
    if (accountNo !== '' && await users.chooseAccount(sessionIdOf(request) as string, accountNo)) return reply.redirect(next ?? '/', 303);
    const accounts = await users.accountsOf(user.userId);
    return sendPage(reply, 'choose-account', {
      title: 'Choose an account', buyer: user, csrfToken: reply.generateCsrf(), accounts, next,
      errors: [{ field: 'accountNo', message: 'Choose one of your accounts' }],
    }, 400);
  });

  portal.get('/forgot-password', { schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, 'forgot-password', { title: 'Reset your password', csrfToken: reply.generateCsrf() }));

  portal.post('/forgot-password', { schema: { hide: true, body: EmailForm } }, async (request, reply) => {
    const email = (request.body.email ?? '').trim();
    if (!looksLikeEmail(email)) {
      const message = email === '' ? 'Enter your email address' : 'Enter an email address in the correct format, like name@example.com';
      return sendPage(reply, 'forgot-password', { title: 'Reset your password', email, errors: [{ field: 'email', message }], csrfToken: reply.generateCsrf() }, 400);
    }
    const refused = await limited(reply, `portal:reset:address:${request.ip}`, RESET_PER_ADDRESS);
    if (refused) return refused;
    // Over the per-email quota the page is the same and no mail goes: no mail bombing, no oracle.
    if ((await rateLimiter.consume(`portal:reset:email:${email.toLowerCase()}`, RESET_PER_EMAIL)).allowed) {
      await users.requestPasswordReset(email);
    }
    return sendPage(reply, 'forgot-password-sent', { title: 'Check your email', email, validMinutes: RESET_VALIDITY_MINUTES });
  });

  portal.get('/reset-password/:token', { schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const reset = await users.passwordReset(request.params.token);
    if (reset.state !== 'valid') return sendMessage(reply, statusOf(reset.state), resetProblem(reset.state));
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
      if ('link' in refused) return sendMessage(reply, statusOf(refused.link), resetProblem(refused.link));
      const reset = await users.passwordReset(token);
      if (reset.state !== 'valid') return sendMessage(reply, statusOf(reset.state), resetProblem(reset.state));
      return resetPage(reply, token, reset.email, refused.errors);
    }
    // Every session of the user has ended with the change; this browser starts a new one.
    return signIn(request, reply, result.userId, undefined);
  });
}
