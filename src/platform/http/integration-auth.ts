import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import {
  createRemoteJWKSet, errors as joseErrors, importSPKI, jwtVerify,
  type JWTPayload, type JWTVerifyGetKey, type JWTVerifyResult, type CryptoKey,
} from 'jose';
import type { Config } from '../../config.js';
import { INTEGRATION_SCOPE, symmetricKey } from './integration-token.js';
import { errors } from './problem.js';

export { INTEGRATION_SCOPE, generatedSecretPath, mintIntegrationToken, type MintOptions } from './integration-token.js';

/**
 * The integration surface's own bearer-JWT scheme. The algorithm is pinned by configuration, so a
 * token signed any other way (including `alg: none`) never verifies; the type is pinned too (see
 * `isAcceptedTyp`); `exp` is required and every time claim allows at most 60 s of clock skew.
 * INTEGRATION_SCOPE (integration-token.ts, with minting) opens the integration surface.
 */
/** Opens the admin surface (`/api/admin`, reference data); not implied by, and does not imply, integration:write. */
export const ADMIN_SCOPE = 'admin';
export const CLOCK_SKEW_SECONDS = 60;
const REALM = 'Bearer realm="portway-integration"';

export interface IntegrationPrincipal { subject: string | undefined; scopes: string[] }

declare module 'fastify' {
  interface FastifyRequest { integrationPrincipal?: IntegrationPrincipal }
}

type VerificationKey = Uint8Array | CryptoKey | JWTVerifyGetKey;

async function verificationKey(config: Config): Promise<VerificationKey> {
  const { key, algorithm } = config.integrationJwt;
  if (key.kind === 'publicKey') return importSPKI(key.pem, algorithm);
  if (key.kind === 'jwks') return createRemoteJWKSet(new URL(key.url));
  return (await symmetricKey(config)) as Uint8Array;
}

function scopesOf(payload: JWTPayload): string[] {
  const scopes: string[] = [];
  if (typeof payload.scope === 'string') scopes.push(...payload.scope.split(' ').filter(Boolean));
  const scp = payload.scp;
  if (typeof scp === 'string') scopes.push(...scp.split(' ').filter(Boolean));
  else if (Array.isArray(scp)) scopes.push(...scp.filter((s): s is string => typeof s === 'string'));
  return scopes;
}

function reasonFor(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf': return 'The token is not valid yet (nbf is in the future).';
      case 'iss': return 'The token was issued by an unexpected issuer (iss).';
      case 'aud': return 'The token is meant for another audience (aud).';
      case 'exp': return 'The token must carry an expiry (exp).';
      default: return `The token's ${error.claim} claim is invalid.`;
    }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm this service does not accept.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature is invalid.';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'No key of the issuer matches the token.';
  return 'The token is malformed.';
}

/**
 * RFC 8725 §3.11: a JWT of another kind signed with the same key (an access token `at+jwt`, a
 * security event `secevent+jwt`, or a header claiming `JWE`/`JOSE`) must not pass as this one. The
 * `typ` may be left out (most issuers do) or be the media type of a plain JWT: `JWT`, compared
 * without regard to letter case as media types are, with or without the `application/` prefix
 * (RFC 7515 §4.1.9). Anything else, including a non-string, is refused.
 */
export function isAcceptedTyp(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== 'string') return false;
  const type = typ.toLowerCase();
  return type === 'jwt' || type === 'application/jwt';
}

export interface IntegrationVerifier { verify(token: string): Promise<IntegrationPrincipal> }

/** What a full verification found: who, and until when (`exp`, seconds since the epoch). */
export interface VerifiedToken { principal: IntegrationPrincipal; expiresAt: number }

/** How many verified tokens are kept, and for how long at most. */
export const VERIFIED_TOKENS = { max: 1000, maxAgeMs: 60_000 } as const;

/**
 * Keeps what `verify` found for a token for up to a minute (`VERIFIED_TOKENS`), keyed by the token's
 * whole text (signature included): an ERP sends one token with every batch, and checking its
 * signature each time (jose over WebCrypto) took ~0.4 ms a request, a twentieth of the service's CPU
 * per catalogue batch. Expiry is checked on every use, as the full verification would (a kept token
 * is refused the moment it has expired, with that verification's own answer); its other claims
 * cannot become wrong as time passes. A key withdrawn from the issuer's JWKS stops opening the
 * surface within the minute, the clock skew already allowed. Refusals are not kept.
 */
export function keepVerified(
  verify: (token: string) => Promise<VerifiedToken>,
  now: () => number = Date.now,
): (token: string) => Promise<IntegrationPrincipal> {
  const kept = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS.max, ttl: VERIFIED_TOKENS.maxAgeMs, ttlResolution: 0, perf: { now } });
  return async (token) => {
    const hit = kept.get(token);
    if (hit && now() / 1000 < hit.expiresAt + CLOCK_SKEW_SECONDS) return hit.principal;
    if (hit) kept.delete(token);
    const verified = await verify(token);
    kept.set(token, verified);
    return verified.principal;
  };
}

export async function createIntegrationVerifier(config: Config): Promise<IntegrationVerifier> {
  const key = await verificationKey(config);
  // One call shape for every key kind: jose's overloads take either a key or a key-resolving function.
  const getKey: JWTVerifyGetKey = typeof key === 'function' ? key : async () => key;
  const { algorithm, issuer, audience } = config.integrationJwt;
  const options = {
    algorithms: [algorithm],
    clockTolerance: CLOCK_SKEW_SECONDS,
    requiredClaims: ['exp'],
    ...(issuer ? { issuer } : {}),
    ...(audience ? { audience } : {}),
  };
  const verify = async (token: string): Promise<VerifiedToken> => {
    let verified: JWTVerifyResult;
    try {
      verified = await jwtVerify(token, getKey, options);
    } catch (error) {
      throw errors.unauthorized(reasonFor(error), `${REALM}, error="invalid_token"`);
    }
    if (!isAcceptedTyp(verified.protectedHeader.typ)) {
      throw errors.unauthorized('The token type (typ) must be JWT or left out.', `${REALM}, error="invalid_token"`);
    }
    const { payload } = verified;
    // jose checks iat only together with a maximum age; a token "issued" in the future is refused here.
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) {
      throw errors.unauthorized('The token is issued in the future (iat).', `${REALM}, error="invalid_token"`);
    }
    return { principal: { subject: payload.sub, scopes: scopesOf(payload) }, expiresAt: payload.exp as number };
  };
  return { verify: keepVerified(verify) };
}

/**
 * A verified token whose `scope`/`scp` holds `requiredScope`: `integration:write` (InboundPolicy) on
 * the integration scope, `admin` on the admin scope. Registered on each encapsulated scope with its
 * own required scope, so a token for one surface never opens another, and neither a public API key
 * nor this JWT opens the other kind of surface.
 */
export function installIntegrationAuth(app: FastifyInstance, verifier: IntegrationVerifier, requiredScope: string = INTEGRATION_SCOPE): void {
  const policy = requiredScope === INTEGRATION_SCOPE ? 'InboundPolicy' : `the ${requiredScope} surface`;
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (!header) throw errors.unauthorized('Send the integration token as Authorization: Bearer <token>.', REALM);
    // The auth-scheme name is case-insensitive (RFC 9110 §11.1): clients that send "bearer" must work.
    const match = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/i.exec(header);
    if (!match) {
      throw errors.unauthorized('The Authorization header must be "Bearer <token>".', `${REALM}, error="invalid_request"`);
    }
    const principal = await verifier.verify(match[1] as string);
    if (!principal.scopes.includes(requiredScope)) {
      throw errors.forbidden(
        `The token lacks the ${requiredScope} scope required by ${policy} (insufficient_scope).`,
        `${REALM}, error="insufficient_scope", scope="${requiredScope}"`,
      );
    }
    request.integrationPrincipal = principal;
  });
}
