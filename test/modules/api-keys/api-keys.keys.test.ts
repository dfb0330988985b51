import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  API_KEY_LENGTH, API_KEY_PREFIX, crc32, generateApiKey, hashApiKey, lookupIdOfPrefix, parseApiKey,
} from '../../../src/modules/api-keys/api-keys.keys.js';
import { createApiKeyVerifier } from '../../../src/modules/api-keys/api-keys.service.js';
import type { Queryable } from '../../../src/platform/db/pool.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A pool whose every query fails the test: proves a refusal happened before any database work. */
function poolThatMustNotBeQueried(): Queryable & { calls: number } {
  const pool = {
    calls: 0,
    query: (() => {
      pool.calls += 1;
      throw new Error('the database must not be queried for a damaged key');
    }) as unknown as Queryable['query'],
  };
  return pool;
}

describe('API key format', () => {
  it('is pwk_, an 11-character lookup id, "_", a 43-character secret and a 6-character checksum', () => {
    const { key, prefix, lookupId } = generateApiKey();
    assert.equal(key.length, API_KEY_LENGTH);
    assert.equal(API_KEY_LENGTH, 65);
    assert.match(key, /^pwk_[0-9A-Za-z]{11}_[0-9A-Za-z]{49}$/);
    assert.equal(prefix, `pwk_${lookupId}`);
    assert.ok(key.startsWith(`${prefix}_`));
    assert.deepEqual(parseApiKey(key), { ok: true, lookupId, prefix });
  });

  it('draws every key from crypto.randomBytes: no two of 2,000 share a secret or a lookup id', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey());
    assert.equal(new Set(keys.map((k) => k.key.slice(16, 59))).size, keys.length);
    assert.equal(new Set(keys.map((k) => k.lookupId)).size, keys.length);
    // 43 base62 characters carry log2(62^43) ≈ 256 bits; the secret uses the whole alphabet.
    const seen = new Set(keys.flatMap((k) => [...k.key.slice(16, 59)]));
    assert.equal(seen.size, 62);
  });

  it('stores the SHA-256 of the whole key', () => {
    const { key, secretHash } = generateApiKey();
    assert.equal(secretHash.length, 32);
    assert.deepEqual(secretHash, hashApiKey(key));
    assert.ok(!secretHash.toString('latin1').includes(key.slice(16)));
  });

  it('computes the standard CRC-32 (check value of "123456789" is CBF43926)', () => {
    assert.equal(crc32('123456789'), 0xcbf43926);
    assert.equal(crc32(''), 0);
  });

  it('reads a prefix back to its lookup id, and nothing else', () => {
    const { prefix, lookupId, key } = generateApiKey();
    assert.equal(lookupIdOfPrefix(prefix), lookupId);
    assert.equal(lookupIdOfPrefix(key), undefined);
    assert.equal(lookupIdOfPrefix('pwk_short'), undefined);
    assert.equal(lookupIdOfPrefix(prefix.replace('pwk_', 'xyz_')), undefined);
  });
});

describe('a damaged key is refused before any database query', () => {
  const { key } = generateApiKey();

  it('every one-character substitution at every position fails the shape or the checksum', () => {
    let variants = 0;
    for (let i = 0; i < key.length; i++) {
      // Several replacements per position, including neighbours in the alphabet (the classic typo).
      const original = key[i] as string;
      const index = BASE62.indexOf(original);
      const replacements = new Set([
        BASE62[(index + 1) % 62], BASE62[(index + 61) % 62], BASE62[(index + 31) % 62],
        original.toUpperCase() === original ? original.toLowerCase() : original.toUpperCase(), '-', '_',
      ]);
      for (const r of replacements) {
        if (r === undefined || r === original) continue;
        const typo = key.slice(0, i) + r + key.slice(i + 1);
        variants += 1;
        assert.deepEqual(parseApiKey(typo), { ok: false }, `typo at ${i}: ${original} → ${r}`);
      }
    }
    assert.ok(variants > key.length * 3);
  });

  it('two swapped neighbouring characters fail too', () => {
    for (let i = 0; i < key.length - 1; i++) {
      if (key[i] === key[i + 1]) continue;
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      assert.deepEqual(parseApiKey(swapped), { ok: false }, `swap at ${i}`);
    }
  });

  it('every truncation, an extra character, surrounding spaces and other prefixes fail', () => {
    for (let n = 0; n < key.length; n++) assert.deepEqual(parseApiKey(key.slice(0, n)), { ok: false }, `truncated to ${n}`);
    assert.deepEqual(parseApiKey(`${key}0`), { ok: false });
    assert.deepEqual(parseApiKey(`0${key}`), { ok: false });
    assert.deepEqual(parseApiKey(` ${key}`), { ok: false });
    assert.deepEqual(parseApiKey(`${key}\n`), { ok: false });
    assert.deepEqual(parseApiKey(key.replace(API_KEY_PREFIX, 'PWK_')), { ok: false });
    assert.deepEqual(parseApiKey(`Bearer ${key}`), { ok: false });
  });

  it('the verifier answers "malformed" for each of them without touching its pool', async () => {
    const pool = poolThatMustNotBeQueried();
    const verifier = createApiKeyVerifier(pool);
    const damaged = [
      key.slice(0, -1),
      key.slice(0, 40),
      `${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`,
      `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`,
      'pwk_',
      'not-a-key',
      'x'.repeat(10_000),
    ];
    for (const text of damaged) {
      assert.deepEqual(await verifier.verify(text), { ok: false, reason: 'malformed' }, text.slice(0, 70));
    }
    assert.deepEqual(await verifier.verify(undefined), { ok: false, reason: 'missing' });
    assert.deepEqual(await verifier.verify(''), { ok: false, reason: 'missing' });
    assert.equal(pool.calls, 0);
  });

  it('a well-formed key does reach the pool (the stub above really would have noticed)', async () => {
    const pool = poolThatMustNotBeQueried();
    await assert.rejects(createApiKeyVerifier(pool).verify(key), /must not be queried/);
    assert.equal(pool.calls, 1);
  });
});
