/**
 * What the public API's access checks need to know of an API key and its quota, without HTTP: the
 * api-keys module implements `ApiKeyAuthenticator`, platform/http/public-auth.ts and rate-limit.ts
 * enforce it on requests, and app.ts hands the one to the other.
 */

/** A key's request quota: `limit` requests per window of `windowS` seconds. */
export interface RateLimitPolicy { limit: number; windowS: number }

export const DEFAULT_RATE_LIMIT: Readonly<RateLimitPolicy> = Object.freeze({ limit: 600, windowS: 60 });

/**
 * Bounds of a key's own quota: a day-long window at most, and a quota a single key could plausibly
 * need. Here, beside the default, because `portway keys` names them in its options without loading
 * the api-keys module (and the database, Redis and mail modules behind it).
 */
export const MAX_RATE_LIMIT = 1_000_000;
export const MAX_WINDOW_S = 86_400;

export type ApiKeyKind = 'integrator' | 'customer';
export const API_KEY_KINDS: readonly ApiKeyKind[] = ['integrator', 'customer'];

/** A key that verified: what the public scope needs to know about its caller. */
export interface AuthenticatedApiKey {
  keyId: string;
  /** `pwk_<lookup id>`: safe to log. */
  prefix: string;
  kind: ApiKeyKind;
  /** The bound account of a customer key; null for an integrator key. */
  accountNo: string | null;
  rateLimit: RateLimitPolicy;
}

export type ApiKeyCheck =
  | { ok: true; key: AuthenticatedApiKey }
  /** `reason` is logged, never answered; `missing` (nothing sent) is the only one the caller is told apart. */
  | { ok: false; reason: string; prefix?: string };

export interface ApiKeyAuthenticator {
  /** Checks the presented `X-API-Key` value (undefined when not sent). */
  verify(presented: string | undefined): Promise<ApiKeyCheck>;
  /** Whether `X-Customer-No` names an account the service knows (a readable, non-blank value). */
  customerExists(accountNo: string): Promise<boolean>;
}
