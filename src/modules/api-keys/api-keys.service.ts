import type { Queryable } from '../../platform/db/pool.js';
import {
  API_KEY_KINDS, DEFAULT_RATE_LIMIT, MAX_RATE_LIMIT, MAX_WINDOW_S, type ApiKeyAuthenticator, type ApiKeyKind, type RateLimitPolicy,
} from '../../platform/auth/api-keys.js';
import { accountExists } from '../customers/index.js';
import { API_KEY_PREFIX, generateApiKey, hashApiKey, hashesMatch, lookupIdOfPrefix, parseApiKey } from './api-keys.keys.js';
import { findApiKeyByLookupId, insertApiKey, listApiKeyRows, revokeApiKeyRow, type ApiKeyRow } from './api-keys.repository.js';

// Defined in platform/auth/api-keys.ts, which imports nothing: `portway keys` names them in its
// options without loading this module (and the database, Redis and mail modules behind it).
export { API_KEY_KINDS, MAX_RATE_LIMIT, MAX_WINDOW_S, type ApiKeyKind };
export const NAME_LENGTH = 100;
/** Verified keys are cached per process for at most this long, so a revocation reaches every instance within 5 s. */
export const MAX_KEY_CACHE_TTL_MS = 5000;

/** What `keys list` shows: everything but the secret (which is not stored anyway). */
export interface ApiKeyRecord {
  id: string;
  prefix: string;
  kind: ApiKeyKind;
  accountNo: string | null;
  name: string | null;
  /** The per-key override, or null for the service default. */
  rateLimit: number | null;
  windowS: number | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export class ApiKeyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiKeyInputError';
  }
}

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  prefix: `${API_KEY_PREFIX}${row.lookup_id}`,
  kind: row.kind,
  accountNo: row.account_no,
  name: row.name,
  rateLimit: row.rate_limit,
  windowS: row.rate_window_s,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

export function effectiveRateLimit(key: { rateLimit: number | null; windowS: number | null }): RateLimitPolicy {
  return { limit: key.rateLimit ?? DEFAULT_RATE_LIMIT.limit, windowS: key.windowS ?? DEFAULT_RATE_LIMIT.windowS };
}

export interface CreateApiKeyInput {
  kind: ApiKeyKind;
  accountNo?: string | undefined;
  name?: string | undefined;
  rateLimit?: number | undefined;
  windowS?: number | undefined;
  expiresAt?: Date | undefined;
}

const isWhole = (n: number, min: number, max: number): boolean => Number.isSafeInteger(n) && n >= min && n <= max;

/** Creates a key. The returned `key` is the only time the secret exists outside the caller's hands. */
export async function createApiKey(
  db: Queryable, input: CreateApiKeyInput, now: Date = new Date(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  if (!API_KEY_KINDS.includes(input.kind)) throw new ApiKeyInputError(`--kind must be integrator or customer (got "${String(input.kind)}")`);
  const accountNo = input.accountNo;
  if (input.kind === 'customer') {
    if (accountNo === undefined || accountNo === '') throw new ApiKeyInputError('a customer key needs --customer ACCOUNT_NO');
  } else if (accountNo !== undefined) {
    throw new ApiKeyInputError('an integrator key serves every customer (named per request in X-Customer-No); leave out --customer');
  }
  if (input.name !== undefined && [...input.name].length > NAME_LENGTH) throw new ApiKeyInputError(`--name must be at most ${NAME_LENGTH} characters`);
  if (input.rateLimit !== undefined && !isWhole(input.rateLimit, 1, MAX_RATE_LIMIT)) {
    throw new ApiKeyInputError(`--rate-limit must be a whole number from 1 to ${MAX_RATE_LIMIT}`);
  }
  if (input.windowS !== undefined && !isWhole(input.windowS, 1, MAX_WINDOW_S)) {
    throw new ApiKeyInputError(`--window-s must be a whole number of seconds from 1 to ${MAX_WINDOW_S}`);
  }
  if (input.expiresAt !== undefined && !(input.expiresAt.getTime() > now.getTime())) {
    throw new ApiKeyInputError(`--expires must be in the future (got ${input.expiresAt.toISOString()})`);
  }
  // A key for an account that does not exist could only ever fail; the foreign key backs this up.
  if (accountNo !== undefined && !(await accountExists(db, accountNo))) {
    throw new ApiKeyInputError(`no customer account "${accountNo}"; push it through PUT /api/integration/customer first`);
  }

  for (;;) {
    const fresh = generateApiKey();
    const row = await insertApiKey(db, {
      lookupId: fresh.lookupId,
      secretHash: fresh.secretHash,
      kind: input.kind,
      accountNo: accountNo ?? null,
      name: input.name ?? null,
      rateLimit: input.rateLimit ?? null,
      rateWindowS: input.windowS ?? null,
      expiresAt: input.expiresAt ?? null,
    });
    // A 64-bit lookup id collides practically never; if it does, draw another key.
    if (row) return { key: fresh.key, record: toRecord(row) };
  }
}

export async function listApiKeys(db: Queryable): Promise<ApiKeyRecord[]> {
  return (await listApiKeyRows(db)).map(toRecord);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Revokes a key named by its id or its prefix (the form logs show). Takes effect at once in the
 * database; each instance's cache lets a verified key live at most MAX_KEY_CACHE_TTL_MS longer.
 * Undefined when no key matches.
 */
export async function revokeApiKey(db: Queryable, idOrPrefix: string): Promise<{ record: ApiKeyRecord; wasRevoked: boolean } | undefined> {
  const text = idOrPrefix.trim();
  const lookupId = lookupIdOfPrefix(text);
  const match = UUID.test(text) ? { id: text } : lookupId ? { lookupId } : undefined;
  if (!match) return undefined;
  const result = await revokeApiKeyRow(db, match);
  return result && { record: toRecord(result.row), wasRevoked: result.wasRevoked };
}

/** A key that verified: what the public scope needs to know about its caller. */
export interface VerifiedApiKey {
  keyId: string;
  prefix: string;
  kind: ApiKeyKind;
  /** The bound account of a customer key; null for an integrator key. */
  accountNo: string | null;
  rateLimit: RateLimitPolicy;
}

export type ApiKeyRefusal = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired';

export type ApiKeyVerification =
  | { ok: true; key: VerifiedApiKey }
  | { ok: false; reason: ApiKeyRefusal; prefix?: string };

export interface ApiKeyVerifierOptions {
  /** Per-process cache of key rows, 0 … MAX_KEY_CACHE_TTL_MS (default: the maximum). */
  cacheTtlMs?: number;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

export interface ApiKeyVerifier {
  verify(presented: string | undefined): Promise<ApiKeyVerification>;
}

/** Lets a cache TTL be checked where the verifier is built, not at the first request. */
export function checkCacheTtl(ttl: number): number {
  if (!Number.isFinite(ttl) || ttl < 0 || ttl > MAX_KEY_CACHE_TTL_MS) {
    throw new RangeError(`cacheTtlMs must be from 0 to ${MAX_KEY_CACHE_TTL_MS} (a revoked key must stop working within 5 s)`);
  }
  return ttl;
}

/**
 * Verifies presented keys: shape and checksum first (no database work for a damaged key), then
 * the row by its lookup id, then the SHA-256 of the presented key against the stored hash in
 * constant time, then revocation and expiry. Rows are cached per process for at most the TTL;
 * revocation and expiry are read from the (possibly cached) row on every request.
 */
export function createApiKeyVerifier(db: Queryable, options: ApiKeyVerifierOptions = {}): ApiKeyVerifier {
  const ttl = checkCacheTtl(options.cacheTtlMs ?? MAX_KEY_CACHE_TTL_MS);
  const now = options.now ?? Date.now;
  // Only rows that exist are cached, so the cache is bounded by the number of keys, whatever callers send.
  const cache = new Map<string, { row: ApiKeyRow; until: number }>();

  async function rowFor(lookupId: string): Promise<ApiKeyRow | undefined> {
    const t = now();
    const hit = cache.get(lookupId);
    if (hit && hit.until > t) return hit.row;
    const row = await findApiKeyByLookupId(db, lookupId);
    if (row && ttl > 0) cache.set(lookupId, { row, until: t + ttl });
    else cache.delete(lookupId);
    return row;
  }

  return {
    async verify(presented) {
      if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
      const parsed = parseApiKey(presented);
      if (!parsed.ok) return { ok: false, reason: 'malformed' };
      const row = await rowFor(parsed.lookupId);
      if (!row) return { ok: false, reason: 'unknown', prefix: parsed.prefix };
      if (!hashesMatch(hashApiKey(presented), row.secret_hash)) return { ok: false, reason: 'unknown', prefix: parsed.prefix };
      if (row.revoked_at !== null) return { ok: false, reason: 'revoked', prefix: parsed.prefix };
      if (row.expires_at !== null && row.expires_at.getTime() <= now()) return { ok: false, reason: 'expired', prefix: parsed.prefix };
      return {
        ok: true,
        key: {
          keyId: row.id,
          prefix: parsed.prefix,
          kind: row.kind,
          accountNo: row.account_no,
          rateLimit: effectiveRateLimit({ rateLimit: row.rate_limit, windowS: row.rate_window_s }),
        },
      };
    },
  };
}

/** `accounts.account_no` is varchar(20): a longer value names no account, and is not looked up. */
const ACCOUNT_NO_LENGTH = 20;

/**
 * What the public API's authentication needs of this module (`ApiKeyAuthenticator`, platform/auth/api-keys.ts): key
 * verification, and whether an account exists. Both are cached per process for the same TTL; only
 * accounts found are kept (accounts are never deleted, but a positive answer still expires), so a
 * cache of unknown numbers cannot be grown by callers.
 */
export function createPublicKeyAuthenticator(db: Queryable, options: ApiKeyVerifierOptions = {}): ApiKeyAuthenticator {
  const ttl = checkCacheTtl(options.cacheTtlMs ?? MAX_KEY_CACHE_TTL_MS);
  const now = options.now ?? Date.now;
  const verifier = createApiKeyVerifier(db, { cacheTtlMs: ttl, now });
  const knownAccounts = new Map<string, number>();
  return {
    verify: (presented) => verifier.verify(presented),
    async customerExists(accountNo) {
      const t = now();
      const knownUntil = knownAccounts.get(accountNo);
      if (knownUntil !== undefined && knownUntil > t) return true;
      if ([...accountNo].length > ACCOUNT_NO_LENGTH || !(await accountExists(db, accountNo))) return false;
      if (ttl > 0) {
        if (knownAccounts.size >= 10_000) for (const [no, until] of knownAccounts) if (until <= t) knownAccounts.delete(no);
        knownAccounts.set(accountNo, t + ttl);
      }
      return true;
    },
  };
}
