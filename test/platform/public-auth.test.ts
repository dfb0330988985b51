import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createPublicKeyAuthenticator, revokeApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { generateApiKey } from '../../src/modules/api-keys/api-keys.keys.js';
import { installPublicApiAuth } from '../../src/platform/http/public-auth.js';
import { createRateLimiter } from '../../src/platform/http/rate-limit.js';
import Fastify from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { capturingLogger } from '../helpers/processes.js';
import { buildPublicTestApp, insertAccount, newKey, type PublicTestApp } from '../modules/api-keys/helpers.js';

const WHOAMI = '/api/public/v1/whoami';

function problemOf(res: LightMyRequestResponse): Record<string, unknown> {
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  return res.json() as Record<string, unknown>;
}

/** Every 401 looks the same apart from its detail (missing vs invalid) and correlation id. */
function assertUnauthorized(res: LightMyRequestResponse, detail: 'missing' | 'invalid'): void {
  assert.equal(res.statusCode, 401, res.body);
  const problem = problemOf(res);
  assert.equal(problem.type, 'urn:portway:problem:unauthorized');
  assert.equal(problem.title, 'Unauthorized');
  assert.equal(problem.status, 401);
  assert.equal(problem.instance, WHOAMI);
  assert.equal(typeof problem.correlationId, 'string');
  assert.equal(res.headers['www-authenticate'], 'ApiKey realm="portway-public"');
  assert.equal(
    problem.detail,
    detail === 'missing'
      ? 'Send a public API key in the X-API-Key header (an Authorization token does not open this API).'
      : 'The API key is not valid: it is malformed, unknown, revoked or expired.',
  );
  assert.equal(res.headers.ratelimit, undefined, 'a refused key has no quota to report');
}

describe('public API authentication (X-API-Key)', () => {
  let db: TestDatabase;
  let t: PublicTestApp;
  let now = Date.now();
  let integrator: { key: string; id: string; prefix: string };
  let customer: { key: string; id: string; prefix: string };
  const log = capturingLogger();

  before(async () => {
    db = await createTestDatabase();
    await insertAccount(db.pool, 'C100');
    await insertAccount(db.pool, 'C200');
    integrator = await newKey(db.pool, { kind: 'integrator', name: 'ERP' });
    customer = await newKey(db.pool, { kind: 'customer', accountNo: 'C100' });
    t = await buildPublicTestApp(db.pool, { now: () => now, logger: log.logger });
  });
  after(async () => {
    await t.close();
    await db.drop();
  });

  const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: WHOAMI, headers });

  it('an integrator key acts for the account in X-Customer-No', async () => {
    const res = await get({ 'x-api-key': integrator.key, 'x-customer-no': 'C200' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      keyId: integrator.id, prefix: integrator.prefix, kind: 'integrator', accountNo: 'C200', rateLimit: { limit: 600, windowS: 60 },
    });
  });

  it('a customer key acts for its own account and ignores X-Customer-No', async () => {
    for (const headers of [{}, { 'x-customer-no': 'C200' }, { 'x-customer-no': 'NOPE' }] as Array<Record<string, string>>) {
      const res = await get({ 'x-api-key': customer.key, ...headers });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { accountNo: string }).accountNo, 'C100');
      assert.equal((res.json() as { kind: string }).kind, 'customer');
    }
  });

  it('401 "missing" without X-API-Key, or with it empty', async () => {
    assertUnauthorized(await get({}), 'missing');
    assertUnauthorized(await get({ 'x-api-key': '' }), 'missing');
  });

  it('401 "missing" for a JWT (or the key) sent as Authorization: a bearer token never opens the public API', async () => {
    const integrationApp = await buildTestApp();
    try {
      const jwt = await integrationApp.token();
      assertUnauthorized(await get({ authorization: `Bearer ${jwt}`, 'x-customer-no': 'C100' }), 'missing');
      assertUnauthorized(await get({ authorization: `Bearer ${integrator.key}`, 'x-customer-no': 'C100' }), 'missing');
    } finally {
      await integrationApp.close();
    }
  });

  it('401 "invalid", identical in every other respect, for malformed, truncated, mistyped, unknown, revoked and expired keys', async () => {
    const revoked = await newKey(db.pool, { kind: 'integrator' });
    await revokeApiKey(db.pool, revoked.id);
    const expiring = await newKey(db.pool, { kind: 'integrator', expiresAt: new Date(Date.now() + 60_000) });
    const cases: Record<string, string> = {
      malformed: 'hello',
      truncated: integrator.key.slice(0, -3),
      mistyped: `${integrator.key.slice(0, 30)}${integrator.key[30] === 'x' ? 'y' : 'x'}${integrator.key.slice(31)}`,
      unknown: generateApiKey().key,
      revoked: revoked.key,
    };
    const bodies = new Map<string, Record<string, unknown>>();
    for (const [name, key] of Object.entries(cases)) {
      const res = await get({ 'x-api-key': key, 'x-customer-no': 'C100' });
      assertUnauthorized(res, 'invalid');
      const { correlationId: _ignored, ...rest } = problemOf(res);
      bodies.set(name, rest);
    }
    const saved = now;
    now = Date.now() + 61_000;
    try {
      const res = await get({ 'x-api-key': expiring.key, 'x-customer-no': 'C100' });
      assertUnauthorized(res, 'invalid');
      const { correlationId: _ignored, ...rest } = problemOf(res);
      bodies.set('expired', rest);
    } finally {
      now = saved;
    }
    const distinct = new Set([...bodies.values()].map((b) => JSON.stringify(b)));
    assert.equal(distinct.size, 1, 'one body for every kind of bad key');

    const refusals = log.lines.filter((l) => l.msg === 'public API key refused').map((l) => l.reason);
    for (const reason of ['malformed', 'unknown', 'revoked', 'expired']) assert.ok(refusals.includes(reason), `the log tells operators why (${reason})`);
    const logged = JSON.stringify(log.lines);
    for (const key of Object.values(cases)) if (key.length > 20) assert.ok(!logged.includes(key), 'no key reaches the log');
  });

  it('400 when an integrator key sends no X-Customer-No (or a blank one)', async () => {
    for (const headers of [{}, { 'x-customer-no': '' }, { 'x-customer-no': '   ' }] as Array<Record<string, string>>) {
      const res = await get({ 'x-api-key': integrator.key, ...headers });
      assert.equal(res.statusCode, 400, res.body);
      const problem = problemOf(res);
      assert.equal(problem.type, 'urn:portway:problem:bad-request');
      assert.match(String(problem.detail), /X-Customer-No/);
    }
  });

  it('404 when X-Customer-No names no account (codes are exact: case and length count)', async () => {
    for (const no of ['C999', 'c100', 'C100 ', 'X'.repeat(21)]) {
      const res = await get({ 'x-api-key': integrator.key, 'x-customer-no': no });
      assert.equal(res.statusCode, 404, `${no}: ${res.body}`);
      const problem = problemOf(res);
      assert.equal(problem.type, 'urn:portway:problem:not-found');
      assert.match(String(problem.detail), /No customer account/);
    }
  });

  it('an account pushed after a 404 is found on the next request (unknown accounts are not cached)', async () => {
    assert.equal((await get({ 'x-api-key': integrator.key, 'x-customer-no': 'LATE' })).statusCode, 404);
    await insertAccount(db.pool, 'LATE');
    assert.equal((await get({ 'x-api-key': integrator.key, 'x-customer-no': 'LATE' })).statusCode, 200);
  });
});

describe('revocation reaches a running scope within the cache TTL', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => { await db.drop(); });

  it('the cached key works until its row is 5 s old, then 401 (injected clock)', async () => {
    let now = 5_000_000;
    const t = await buildPublicTestApp(db.pool, { now: () => now });
    try {
      const key = await newKey(db.pool, { kind: 'integrator' });
      await insertAccount(db.pool, 'R1');
      const get = () => t.app.inject({ method: 'GET', url: WHOAMI, headers: { 'x-api-key': key.key, 'x-customer-no': 'R1' } });
      assert.equal((await get()).statusCode, 200);
      await revokeApiKey(db.pool, key.id);
      now += 4999;
      assert.equal((await get()).statusCode, 200, 'cached for at most 5 s');
      now += 1;
      assertUnauthorized(await get(), 'invalid');
    } finally {
      await t.close();
    }
  });

  it('with cacheTtlMs 0 the next request after a revocation is refused', async () => {
    const t = await buildPublicTestApp(db.pool, { cacheTtlMs: 0 });
    try {
      const key = await newKey(db.pool, { kind: 'integrator' });
      await insertAccount(db.pool, 'R2');
      const get = () => t.app.inject({ method: 'GET', url: WHOAMI, headers: { 'x-api-key': key.key, 'x-customer-no': 'R2' } });
      assert.equal((await get()).statusCode, 200);
      await revokeApiKey(db.pool, key.prefix);
      assertUnauthorized(await get(), 'invalid');
    } finally {
      await t.close();
    }
  });

  it('refuses to install with a cache TTL above 5 s', async () => {
    const limiter = await createRateLimiter();
    const app = Fastify();
    try {
      await assert.rejects(async () => {
        await app.register(async (scope) => {
          installPublicApiAuth(scope, { authenticator: createPublicKeyAuthenticator(db.pool, { cacheTtlMs: 10_000 }), rateLimiter: limiter });
        });
      }, /within 5 s/);
    } finally {
      await app.close();
      await limiter.close();
    }
  });
});

describe('an API key never opens the integration surface', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('PUT /api/integration/* with only X-API-Key (or the key as a bearer token) is 401', async () => {
    const key = await newKey(t.pool, { kind: 'integrator' });
    for (const headers of [{ 'x-api-key': key.key }, { authorization: `Bearer ${key.key}` }]) {
      const res = await t.app.inject({
        method: 'PUT', url: '/api/integration/catalogue/products', headers, payload: { source: 'x', data: [] },
      });
      assert.equal(res.statusCode, 401, res.body);
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
    }
  });
});
