import type { ApiKeyKind } from '../../platform/auth/api-keys.js';
import type { Queryable } from '../../platform/db/pool.js';

export interface ApiKeyRow {
  id: string;
  lookup_id: string;
  secret_hash: Buffer;
  kind: ApiKeyKind;
  account_no: string | null;
  name: string | null;
  rate_limit: number | null;
  rate_window_s: number | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface NewApiKeyRow {
  lookupId: string;
  secretHash: Buffer;
  kind: ApiKeyKind;
  accountNo: string | null;
  name: string | null;
  rateLimit: number | null;
  rateWindowS: number | null;
  expiresAt: Date | null;
}

const COLUMNS = `id::text, lookup_id, secret_hash, kind, account_no, name, rate_limit, rate_window_s, created_at, expires_at, revoked_at`;

/** Inserts a key; undefined when the lookup id is already taken (the caller draws a new key). */
export async function insertApiKey(db: Queryable, key: NewApiKeyRow): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (lookup_id, secret_hash, kind, account_no, name, rate_limit, rate_window_s, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (lookup_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [key.lookupId, key.secretHash, key.kind, key.accountNo, key.name, key.rateLimit, key.rateWindowS, key.expiresAt],
  );
  return rows[0];
}

export async function findApiKeyByLookupId(db: Queryable, lookupId: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE lookup_id = $1`, [lookupId]);
  return rows[0];
}

export async function listApiKeyRows(db: Queryable): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
  return rows;
}

/**
 * Revokes by id (a well-formed uuid) or lookup id. A key already revoked keeps its first revocation time.
 * Returns the row after the update, or undefined when no key matches.
 */
export async function revokeApiKeyRow(db: Queryable, match: { id: string } | { lookupId: string }): Promise<{ row: ApiKeyRow; wasRevoked: boolean } | undefined> {
  const [condition, value] = 'id' in match ? ['id = $1::uuid', match.id] : ['lookup_id = $1', match.lookupId];
  const { rows } = await db.query<ApiKeyRow & { was_revoked: boolean }>(
    `WITH target AS (SELECT id, revoked_at IS NOT NULL AS was_revoked FROM api_keys WHERE ${condition} FOR UPDATE)
     UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, now())
     FROM target WHERE k.id = target.id
     RETURNING ${COLUMNS.split(', ').map((c) => `k.${c}`).join(', ')}, target.was_revoked`,
    [value],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { was_revoked: wasRevoked, ...rest } = row;
  return { row: rest, wasRevoked };
}
