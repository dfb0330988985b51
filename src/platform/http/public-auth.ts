import type { FastifyInstance, FastifyRequest } from 'fastify';
import { textProblem } from '../schema/formats.js';
import { AppError, errors, ProblemSchema } from './problem.js';
import { installRateLimit, type RateLimitPolicy, type RateLimiter } from './rate-limit.js';

/**
 * The public API's authentication (decisions §4): an `X-API-Key` header, then the per-key rate
 * limit, then the customer the request acts for. Installed in the public scope only, so a JWT never
 * opens this API (the Authorization header is not read here) and a key never opens the integration
 * surface (whose scope reads only the Authorization header).
 *
 * The scheme is the platform's; the keys and the accounts belong to a module. What this scheme
 * needs of them is the `ApiKeyAuthenticator` below, which src/app.ts takes from the api-keys module.
 */
export const API_KEY_HEADER = 'x-api-key';
export const CUSTOMER_HEADER = 'x-customer-no';
const CHALLENGE = 'ApiKey realm="portway-public"';

/** The problems every public route may answer (its 200 and any other status are its own). */
export const PUBLIC_PROBLEMS = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema, 503: ProblemSchema };

/** The headers schema of a public route: the account it acts for. */
export const CUSTOMER_HEADER_SCHEMA = {
  type: 'object',
  properties: { [CUSTOMER_HEADER]: { type: 'string', description: 'The account to act for; required with an integrator key, ignored with a customer key' } },
};

import type { ApiKeyAuthenticator, ApiKeyKind, AuthenticatedApiKey } from '../auth/api-keys.js';

export type { ApiKeyAuthenticator, ApiKeyCheck, ApiKeyKind, AuthenticatedApiKey } from '../auth/api-keys.js';

export interface PublicCaller {
  keyId: string;
  /** `pwk_<lookup id>`: safe to log. */
  prefix: string;
  kind: ApiKeyKind;
  /** The account the request acts for: the key's own (customer key) or X-Customer-No (integrator key). */
  accountNo: string;
  rateLimit: RateLimitPolicy;
}

declare module 'fastify' {
  interface FastifyRequest { publicCaller?: PublicCaller }
}

export interface PublicApiAuthOptions {
  /** Keys and accounts, with whatever caching the owner of the keys allows (revocation within 5 s). */
  authenticator: ApiKeyAuthenticator;
  /** One limiter per process, shared by every public scope (createRateLimiter). */
  rateLimiter: RateLimiter;
}

/**
 * Every 401 has the same status, type, title and challenge, so a caller cannot tell an unknown
 * key from a revoked or expired one; the detail only says whether a key was sent at all.
 */
export const publicAuthErrors = {
  missingKey: () => errors.unauthorized(
    'Send a public API key in the X-API-Key header (an Authorization token does not open this API).', CHALLENGE,
  ),
  invalidKey: () => errors.unauthorized('The API key is not valid: it is malformed, unknown, revoked or expired.', CHALLENGE),
  missingCustomer: () => errors.badRequest(
    'An integrator key must name the customer it acts for in the X-Customer-No header.',
    [{ path: '/headers/x-customer-no', message: 'is required for an integrator key' }],
  ),
  unreadableCustomer: (problem: string) => errors.badRequest(
    `X-Customer-No ${problem}.`, [{ path: '/headers/x-customer-no', message: problem }],
  ),
  unknownCustomer: (accountNo: string) => errors.notFound(`No customer account "${accountNo}" (X-Customer-No).`),
};

/** The caller of a request in the public scope; a route outside it asking is a wiring bug. */
export function publicCallerOf(request: FastifyRequest): PublicCaller {
  if (!request.publicCaller) {
    throw new AppError('internal', 500, 'Internal server error', 'The route is not behind the public API authentication.');
  }
  return request.publicCaller;
}

const headerText = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/**
 * Installs the public API's hooks on `scope`, in this order: key (401), rate limit (429, and the
 * RateLimit headers on every later response), customer (400/404). A refused key therefore uses no
 * quota, while probing account numbers with a valid key does.
 */
export function installPublicApiAuth(scope: FastifyInstance, options: PublicApiAuthOptions): void {
  const { authenticator } = options;
  const verified = new WeakMap<FastifyRequest, AuthenticatedApiKey>();

  scope.addHook('onRequest', async (request) => {
    const result = await authenticator.verify(headerText(request.headers[API_KEY_HEADER]));
    if (!result.ok) {
      request.log.info({ apiKey: result.prefix, reason: result.reason }, 'public API key refused');
      throw result.reason === 'missing' ? publicAuthErrors.missingKey() : publicAuthErrors.invalidKey();
    }
    verified.set(request, result.key);
  });

  installRateLimit(scope, options.rateLimiter, (request) => {
    const key = verified.get(request);
    if (!key) throw new AppError('internal', 500, 'Internal server error', 'Rate limiting ran before authentication.');
    return { key: key.keyId, policy: key.rateLimit };
  });

  scope.addHook('onRequest', async (request) => {
    const key = verified.get(request) as AuthenticatedApiKey;
    let accountNo = key.accountNo;
    if (key.kind === 'integrator' || accountNo === null) {
      const sent = headerText(request.headers[CUSTOMER_HEADER]);
      if (sent === undefined || sent.trim() === '') throw publicAuthErrors.missingCustomer();
      // Node's parser refuses a NUL in a header, but a proxy or inject may pass one; PostgreSQL cannot take it.
      const problem = textProblem(sent);
      if (problem) throw publicAuthErrors.unreadableCustomer(problem);
      if (!(await authenticator.customerExists(sent))) throw publicAuthErrors.unknownCustomer(sent);
      accountNo = sent;
    }
    request.publicCaller = { keyId: key.keyId, prefix: key.prefix, kind: key.kind, accountNo, rateLimit: key.rateLimit };
  });
}
