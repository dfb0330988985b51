import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { API_KEY_PREFIX, crc32, hashApiKey } from '../../../src/modules/api-keys/api-keys.keys.js';
import {
  ApiKeyInputError, createApiKey, createApiKeyVerifier, listApiKeys, revokeApiKey,
} from '../../../src/modules/api-keys/api-keys.service.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { insertAccount, newKey } from './helpers.js';

/** A key with the right shape and checksum for `prefix` whose secret differs from the real one. */
function forgedKeyFor(prefix: string): string {
  const body = `${prefix}_${'A'.repeat(43)}`;
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let value = crc32(body);
  let checksum = '';
  while (value > 0) {
    checksum = BASE62[value % 62] + checksum;
    value = Math.floor(value / 62);
  }
  return body + checksum.padStart(6, '0');
}

describe('api keys service', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await insertAccount(db.pool, 'C100');
  });
  after(async () => { await db.drop(); });

  describe('create', () => {
    it('stores only the hash: neither the key nor its secret part appears anywhere in the table', async () => {
      const { key, record } = await createApiKey(db.pool, { kind: 'customer', accountNo: 'C100', name: 'Web shop' });
      assert.ok(key.startsWith(`${record.prefix}_`));
      const { rows } = await db.pool.query<{ dump: string; hash: Buffer }>(
        `SELECT row_to_json(k)::text AS dump, secret_hash AS hash FROM api_keys k WHERE id = $1`, [record.id],
      );
      const { dump, hash } = rows[0] as { dump: string; hash: Buffer };
      assert.ok(!dump.includes(key), 'the full key is not stored');
      assert.ok(!dump.includes(key.slice(16, 59)), 'the secret is not stored');
      assert.ok(!dump.includes(key.slice(16, 40)), 'no part of the secret is stored');
      assert.ok(!hash.toString('latin1').includes(key.slice(16, 40)));
      assert.deepEqual(hash, hashApiKey(key));
      assert.equal(record.kind, 'customer');
      assert.equal(record.accountNo, 'C100');
      assert.equal(record.name, 'Web shop');
      assert.equal(record.rateLimit, null);
      assert.equal(record.windowS, null);
      assert.equal(record.revokedAt, null);
      assert.equal(record.expiresAt, null);
    });

    it('a customer key needs an existing account; an integrator key refuses one', async () => {
      await assert.rejects(createApiKey(db.pool, { kind: 'customer' }), (e: unknown) => e instanceof ApiKeyInputError && /--customer/.test(e.message));
      await assert.rejects(createApiKey(db.pool, { kind: 'customer', accountNo: 'NOPE' }), (e: unknown) => e instanceof ApiKeyInputError && /no customer account "NOPE"/.test(e.message));
      await assert.rejects(createApiKey(db.pool, { kind: 'integrator', accountNo: 'C100' }), (e: unknown) => e instanceof ApiKeyInputError && /leave out --customer/.test(e.message));
      const { record } = await createApiKey(db.pool, { kind: 'integrator' });
      assert.equal(record.accountNo, null);
    });

    it('refuses bad overrides, a past expiry and an overlong name', async () => {
      for (const input of [
        { rateLimit: 0 }, { rateLimit: 1.5 }, { rateLimit: 1_000_001 }, { windowS: 0 }, { windowS: 86_401 },
        { expiresAt: new Date(Date.now() - 1000) }, { name: 'n'.repeat(101) },
      ]) {
        await assert.rejects(createApiKey(db.pool, { kind: 'integrator', ...input }), ApiKeyInputError, JSON.stringify(input));
      }
      const { record } = await createApiKey(db.pool, { kind: 'integrator', rateLimit: 5, windowS: 10, name: 'n'.repeat(100) });
      assert.equal(record.rateLimit, 5);
      assert.equal(record.windowS, 10);
    });

    it('the table itself refuses a customer key without an account (the check does not rest on the code alone)', async () => {
      await assert.rejects(db.pool.query(
        `INSERT INTO api_keys (lookup_id, secret_hash, kind) VALUES ('x', $1, 'customer')`, [Buffer.alloc(32)],
      ), /api_keys_account_by_kind/);
      await assert.rejects(db.pool.query(
        `INSERT INTO api_keys (lookup_id, secret_hash, kind, account_no) VALUES ('y', $1, 'customer', 'NOPE')`, [Buffer.alloc(32)],
      ), /foreign key/);
    });
  });

  describe('verify', () => {
    it('accepts a good key and reports its caller data with the effective rate limit', async () => {
      const integrator = await newKey(db.pool, { kind: 'integrator' });
      const customer = await newKey(db.pool, { kind: 'customer', accountNo: 'C100', rateLimit: 7, windowS: 9 });
      const verifier = createApiKeyVerifier(db.pool);
      assert.deepEqual(await verifier.verify(integrator.key), {
        ok: true,
        key: { keyId: integrator.id, prefix: integrator.prefix, kind: 'integrator', accountNo: null, rateLimit: { limit: 600, windowS: 60 } },
      });
      assert.deepEqual(await verifier.verify(customer.key), {
        ok: true,
        key: { keyId: customer.id, prefix: customer.prefix, kind: 'customer', accountNo: 'C100', rateLimit: { limit: 7, windowS: 9 } },
      });
    });

    it('compares the hashes with crypto.timingSafeEqual; a forged secret under a real prefix is "unknown"', async (t) => {
      const real = await newKey(db.pool, { kind: 'integrator' });
      const forged = forgedKeyFor(real.prefix);
      const verifier = createApiKeyVerifier(db.pool);
      const spy = t.mock.method(crypto, 'timingSafeEqual');

      assert.deepEqual(await verifier.verify(forged), { ok: false, reason: 'unknown', prefix: real.prefix });
      assert.equal(spy.mock.callCount(), 1);
      const [presented, stored] = spy.mock.calls[0]?.arguments as [Buffer, Buffer];
      assert.deepEqual(presented, hashApiKey(forged));
      assert.deepEqual(stored, hashApiKey(real.key));
      assert.equal(spy.mock.calls[0]?.result, false);

      assert.equal((await verifier.verify(real.key)).ok, true);
      assert.equal(spy.mock.callCount(), 2);
      assert.equal(spy.mock.calls[1]?.result, true);
    });

    it('a well-formed key that was never issued is "unknown"', async () => {
      const verifier = createApiKeyVerifier(db.pool);
      const stranger = forgedKeyFor(`${API_KEY_PREFIX}00000000000`);
      assert.deepEqual(await verifier.verify(stranger), { ok: false, reason: 'unknown', prefix: `${API_KEY_PREFIX}00000000000` });
    });

    it('an expired key is refused from its expiry instant on', async () => {
      let now = Date.now();
      const expiresAt = new Date(now + 60_000);
      const key = await newKey(db.pool, { kind: 'integrator', expiresAt });
      const verifier = createApiKeyVerifier(db.pool, { now: () => now });
      assert.equal((await verifier.verify(key.key)).ok, true);
      now = expiresAt.getTime() - 1;
      assert.equal((await verifier.verify(key.key)).ok, true);
      now = expiresAt.getTime();
      assert.deepEqual(await verifier.verify(key.key), { ok: false, reason: 'expired', prefix: key.prefix });
    });

    it('a revoked key stops verifying once the cached row is older than the TTL', async () => {
      let now = 1_000_000;
      const key = await newKey(db.pool, { kind: 'integrator' });
      const verifier = createApiKeyVerifier(db.pool, { cacheTtlMs: 5000, now: () => now });
      assert.equal((await verifier.verify(key.key)).ok, true);
      await revokeApiKey(db.pool, key.id);
      now += 4999;
      assert.equal((await verifier.verify(key.key)).ok, true, 'still the cached row, within the 5 s bound');
      now += 1;
      assert.deepEqual(await verifier.verify(key.key), { ok: false, reason: 'revoked', prefix: key.prefix });
    });

    it('with a TTL of 0 a revocation is seen by the next request', async () => {
      const key = await newKey(db.pool, { kind: 'integrator' });
      const verifier = createApiKeyVerifier(db.pool, { cacheTtlMs: 0 });
      assert.equal((await verifier.verify(key.key)).ok, true);
      await revokeApiKey(db.pool, key.prefix);
      assert.deepEqual(await verifier.verify(key.key), { ok: false, reason: 'revoked', prefix: key.prefix });
    });

    it('refuses a cache TTL above 5 s or below 0', () => {
      assert.throws(() => createApiKeyVerifier(db.pool, { cacheTtlMs: 5001 }), /within 5 s/);
      assert.throws(() => createApiKeyVerifier(db.pool, { cacheTtlMs: -1 }), RangeError);
    });
  });

  describe('list and revoke', () => {
    it('lists every key without anything secret, and revokes by id or prefix, once', async () => {
      const a = await newKey(db.pool, { kind: 'integrator', name: 'ERP middleware' });
      const b = await newKey(db.pool, { kind: 'customer', accountNo: 'C100' });

      const first = await revokeApiKey(db.pool, a.id);
      assert.equal(first?.wasRevoked, false);
      assert.ok(first?.record.revokedAt instanceof Date);
      const again = await revokeApiKey(db.pool, a.id);
      assert.equal(again?.wasRevoked, true);
      assert.deepEqual(again?.record.revokedAt, first?.record.revokedAt, 'the first revocation time is kept');
      assert.equal((await revokeApiKey(db.pool, b.prefix))?.record.id, b.id);

      assert.equal(await revokeApiKey(db.pool, '00000000-0000-0000-0000-000000000000'), undefined);
      assert.equal(await revokeApiKey(db.pool, 'not-an-id'), undefined);
      assert.equal(await revokeApiKey(db.pool, `${API_KEY_PREFIX}zzzzzzzzzzz`), undefined);

      const listed = await listApiKeys(db.pool);
      const byId = new Map(listed.map((k) => [k.id, k]));
      assert.equal(byId.get(a.id)?.name, 'ERP middleware');
      assert.equal(byId.get(a.id)?.prefix, a.prefix);
      assert.ok(byId.get(b.id)?.revokedAt);
      const text = JSON.stringify(listed);
      for (const k of [a, b]) assert.ok(!text.includes(k.key.slice(16)), 'no secret in the listing');
      assert.ok(listed.every((k) => !('secretHash' in k) && !('secret_hash' in k)));
    });
  });
});
