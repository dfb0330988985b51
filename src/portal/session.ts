import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from '../platform/db/pool.js';
import { countBasketLines, type BasketOwner } from '../modules/baskets/index.js';
import { may, type Buyer, type Capability, type Role, type UsersService } from '../modules/users/index.js';
import { notAllowed, sendMessage } from './pages.js';
import type { BuyerView } from './render.js';

/**
 * The session cookie and the guard of signed-in pages. The cookie holds the session id (32 random
 * bytes); the database holds only its sha256 (modules/users/sessions.repository.ts).
 */
export const SESSION_COOKIE = 'portway_session';

export interface CookiePolicy { secure: boolean; maxAgeS: number }

/** What a signed-in page route gets: the buyer, the account they act for, their role in it, and the form token. */
export interface SignedInBuyer extends BuyerView {
  userId: string;
  accountNo: string;
  accountName: string;
  role: Role;
  can: Readonly<Record<Capability, boolean>>;
  csrfToken: string;
}

const CAPABILITIES: readonly Capability[] = ['view', 'order', 'manage-people', 'approve', 'see-activity'];

/** What the role lets its user do, for the pages to show or hide their buttons. */
export const capabilitiesOf = (role: Role): Readonly<Record<Capability, boolean>> =>
  Object.fromEntries(CAPABILITIES.map((c) => [c, may(role, c)])) as Record<Capability, boolean>;

/** The layout's view of a session's user, account chosen or not (the account choice): what its role there lets it do, for the navigation. */
export function navigationOf(user: Buyer): BuyerView {
  return { ...user, can: user.role === null ? undefined : capabilitiesOf(user.role) };
}

/** The basket a signed-in buyer works on: theirs for the account they act for. */
export function basketOwnerOf(buyer: SignedInBuyer): BasketOwner {
  return { userId: buyer.userId, accountNo: buyer.accountNo };
}

export function sessionIdOf(request: FastifyRequest): string | undefined {
  return request.cookies[SESSION_COOKIE] || undefined;
}

export function setSessionCookie(reply: FastifyReply, sessionId: string, policy: CookiePolicy): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/', httpOnly: true, sameSite: 'lax', secure: policy.secure, maxAge: policy.maxAgeS,
  });
}

export function clearSessionCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: policy.secure });
}

/** Starts with one `/`: not `//` or `/\\`, which browsers read as the start of another host. */
const isLocalPath = (path: string): boolean => path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');

/**
 * A local path to return to after signing in: starts with one `/` (not `//` or `/\\`, which
 * browsers read as another host), no control characters. Anything else is dropped. The check is
 * made again on the path as normalised, which is what is returned: `/..//evil.example`,
 * `/.//x` and `/%2e%2e//x` all pass the first check and normalise to a `//` path.
 */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2000) return undefined;
  if (!isLocalPath(next)) return undefined;
  if ([...next].some((c) => c <= '\u001f' || c === '\u007f' || c === '\\')) return undefined;
  const base = 'http://portal.invalid';
  const url = new URL(next, base);
  if (url.origin !== base) return undefined;
  const path = url.pathname + url.search;
  return isLocalPath(path) && !path.includes('\\') ? path : undefined;
}

const buyers = new WeakMap<FastifyRequest, SignedInBuyer>();
const sessions = new WeakMap<FastifyRequest, Buyer>();

/** The signed-in buyer of a request that passed `requireBuyer`. */
export function buyerOf(request: FastifyRequest): SignedInBuyer {
  const buyer = buyers.get(request);
  if (!buyer) throw new Error('buyerOf() called on a route without the requireBuyer preHandler');
  return buyer;
}

/** The session's user, account chosen or not, on a route behind `requireSignedIn`. */
export function sessionUserOf(request: FastifyRequest): Buyer {
  const user = sessions.get(request);
  if (!user) throw new Error('sessionUserOf() called on a route without the requireSignedIn preHandler');
  return user;
}

function signInRedirect(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A POST cannot be replayed after signing in, so only a GET is returned to.
  const next = request.method === 'GET' ? safeNext(request.url) : undefined;
  return reply.redirect(next && next !== '/' ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in', 303);
}

/**
 * preHandlers for page routes. Every call reads the session afresh: a revoked or unlinked session
 * stops at once. `pool` is for the basket's line count the navigation shows.
 */
export function sessionGuards(users: UsersService, pool: Pool) {
  async function load(request: FastifyRequest): Promise<Buyer | undefined> {
    const id = sessionIdOf(request);
    return id ? users.buyerOf(id) : undefined;
  }

  async function signedInBuyer(request: FastifyRequest, reply: FastifyReply, withBasketCount: boolean): Promise<void> {
    const buyer = await load(request);
    if (!buyer) {
      await signInRedirect(request, reply);
      return;
    }
    if (buyer.accountNo === null || buyer.accountName === null || buyer.role === null) {
      const next = request.method === 'GET' ? safeNext(request.url) : undefined;
      await reply.redirect(next && next !== '/' ? `/choose-account?next=${encodeURIComponent(next)}` : '/choose-account', 303);
      return;
    }
    const owner = { userId: buyer.userId, accountNo: buyer.accountNo };
    const can = capabilitiesOf(buyer.role);
    sessions.set(request, buyer);
    buyers.set(request, {
      userId: buyer.userId, email: buyer.email, name: buyer.name,
      accountNo: buyer.accountNo, accountName: buyer.accountName, role: buyer.role, can, csrfToken: reply.generateCsrf(),
      // A role without the basket (a Viewer) has no basket link to count for.
      basketLines: withBasketCount && can.order ? await countBasketLines(pool, owner) : undefined,
    });
  }

  /**
   * A live session for an account its user is still linked to and active in, and that still
   * exists; otherwise to sign-in (no session) or to the account choice (no account, one no longer
   * theirs, or a membership deactivated). The page's navigation gets the basket's line count (one
   * small query, for a role that has a basket; a form that fails renders the page again, so POSTs
   * get it too).
   */
  async function requireBuyer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    return signedInBuyer(request, reply, true);
  }

  /** `requireBuyer` for answers that are not pages (the typeahead's JSON, downloads): no navigation, no basket count. */
  async function requireBuyerData(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    return signedInBuyer(request, reply, false);
  }

  /** A live session, whether or not it has an account yet (the account choice). */
  async function requireSignedIn(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const buyer = await load(request);
    if (!buyer) {
      await signInRedirect(request, reply);
      return;
    }
    sessions.set(request, buyer);
  }

  /**
   * After requireBuyer: the page or POST needs `capability`, which the user's role in the account
   * may not give (a Viewer's forged order form). Refused with a 403 page that says why; nothing
   * of the request is done.
   */
  function requireCapability(capability: Capability) {
    return async function hasCapability(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (reply.sent) return;
      const buyer = buyers.get(request);
      if (buyer === undefined) throw new Error('requireCapability runs after requireBuyer');
      if (!buyer.can[capability]) await sendMessage(reply, 403, notAllowed(buyer.role, buyer.accountName, capability), buyer, buyer.csrfToken);
    };
  }

  return { requireBuyer, requireBuyerData, requireSignedIn, requireCapability, load };
}
