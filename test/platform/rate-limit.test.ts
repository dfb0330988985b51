import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createRateLimiter, DEFAULT_RATE_LIMIT, rateLimitHeaders } from '../../src/platform/http/rate-limit.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { capturingLogger } from '../helpers/processes.js';
import { buildPublicTestApp, insertAccount, newKey, redisUrl, testKeyPrefix, type PublicTestApp } from '../modules/api-keys/helpers.js';

const WHOAMI = '/api/public/v1/whoami';
const mode = redisUrl ? 'Redis (REDIS_URL set)' : 'in process (REDIS_URL unset)';

/** `"default";r=<n>;t=<n>` → {r, t}; fails the test on any other syntax. */
function parseRateLimit(res: LightMyRequestResponse): { r: number; t: number } {
  const value = String(res.headers.ratelimit);
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(value);
  assert.ok(match, `RateLimit field "${value}" follows draft-ietf-httpapi-ratelimit-headers`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

describe(`per-key rate limits, counters ${mode}`, () => {
  let db: TestDatabase;
  let t: PublicTestApp;
  before(async () => {
    db = await createTestDatabase();
    await insertAccount(db.pool, 'C1');
    t = await buildPublicTestApp(db.pool);
  });
  after(async () => {
    await t.close();
    await db.drop();
  });

  const call = (key: string, url = WHOAMI) =>
    t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, 'x-customer-no': 'C1' } });

  it('uses the limiter the environment asks for', () => {
    assert.equal(t.limiter.shared, redisUrl !== undefined);
  });

  it('peek tells how often a key was counted in its window and when it ends, counting nothing', async () => {
    const policy = { limit: 3, windowS: 60 };
    const key = `peek-${Date.now()}`;
    assert.deepEqual(await t.limiter.peek(key, policy), { count: 0, resetS: 0 });
    await t.limiter.consume(key, policy);
    await t.limiter.consume(key, policy);
    const seen = await t.limiter.peek(key, policy);
    assert.equal(seen.count, 2);
    assert.ok(seen.resetS > 0 && seen.resetS <= 60);
    assert.equal((await t.limiter.peek(key, policy)).count, 2, 'peeking counted nothing');
    assert.equal((await t.limiter.peek(key, { limit: 3, windowS: 61 })).count, 0, 'another policy is another counter');
  });

  it('allows N requests per window, with RateLimit-Policy and RateLimit on each; request N+1 is 429 with Retry-After', async () => {
    const key = await newKey(db.pool, { kind: 'integrator', rateLimit: 3, windowS: 120 });
    for (let i = 1; i <= 3; i++) {
      const res = await call(key.key);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-policy'], '"default";q=3;w=120');
      const { r, t: reset } = parseRateLimit(res);
      assert.equal(r, 3 - i);
      assert.ok(reset >= 1 && reset <= 120, `t=${reset} lies within the window`);
    }
    const refused = await call(key.key);
    assert.equal(refused.statusCode, 429, refused.body);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    const problem = refused.json() as Record<string, unknown>;
    assert.equal(problem.type, 'urn:portway:problem:quota-exceeded');
    assert.equal(problem.status, 429);
    assert.equal(problem.title, 'Too many requests');
    assert.match(String(problem.detail), /3 requests per 120 s/);
    assert.equal(refused.headers['ratelimit-policy'], '"default";q=3;w=120');
    const { r, t: reset } = parseRateLimit(refused);
    assert.equal(r, 0);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 120, `Retry-After ${String(refused.headers['retry-after'])}`);
    assert.equal(retryAfter, reset, 'Retry-After and t name the same reset');
    assert.equal((await call(key.key)).statusCode, 429, 'stays refused for the rest of the window');
  });

  it('a key without an override gets the default 600 per 60 s', async () => {
    const key = await newKey(db.pool, { kind: 'integrator' });
    const res = await call(key.key);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['ratelimit-policy'], `"default";q=${DEFAULT_RATE_LIMIT.limit};w=${DEFAULT_RATE_LIMIT.windowS}`);
    assert.equal(res.headers['ratelimit-policy'], '"default";q=600;w=60');
    assert.equal(parseRateLimit(res).r, 599);
  });

  it('an override of only the limit keeps the default window, and only the window the default limit', async () => {
    const limitOnly = await newKey(db.pool, { kind: 'integrator', rateLimit: 10 });
    const windowOnly = await newKey(db.pool, { kind: 'integrator', windowS: 3600 });
    assert.equal((await call(limitOnly.key)).headers['ratelimit-policy'], '"default";q=10;w=60');
    assert.equal((await call(windowOnly.key)).headers['ratelimit-policy'], '"default";q=600;w=3600');
  });

  it("one key's exhaustion never touches another's, even with the same limits", async () => {
    const a = await newKey(db.pool, { kind: 'integrator', rateLimit: 2, windowS: 120 });
    const b = await newKey(db.pool, { kind: 'integrator', rateLimit: 2, windowS: 120 });
    await call(a.key);
    await call(a.key);
    assert.equal((await call(a.key)).statusCode, 429);
    const other = await call(b.key);
    assert.equal(other.statusCode, 200);
    assert.equal(parseRateLimit(other).r, 1);
  });

  it('refused keys (401) use no quota: not the key they imitate, nor anyone else\'s', async () => {
    const key = await newKey(db.pool, { kind: 'integrator', rateLimit: 2, windowS: 120 });
    for (let i = 0; i < 5; i++) {
      const res = await call(key.key.slice(0, -1));
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers.ratelimit, undefined);
    }
    const res = await call(key.key);
    assert.equal(res.statusCode, 200);
    assert.equal(parseRateLimit(res).r, 1, 'the first counted request');
  });

  it('errors after authentication carry the headers and count (400, 404 and a route\'s own error)', async () => {
    const key = await newKey(db.pool, { kind: 'integrator', rateLimit: 4, windowS: 120 });
    const noCustomer = await t.app.inject({ method: 'GET', url: WHOAMI, headers: { 'x-api-key': key.key } });
    assert.equal(noCustomer.statusCode, 400);
    assert.equal(parseRateLimit(noCustomer).r, 3);
    const unknown = await t.app.inject({ method: 'GET', url: WHOAMI, headers: { 'x-api-key': key.key, 'x-customer-no': 'NOPE' } });
    assert.equal(unknown.statusCode, 404);
    assert.equal(parseRateLimit(unknown).r, 2);
    const failed = await call(key.key, '/api/public/v1/fails');
    assert.equal(failed.statusCode, 400);
    assert.equal(failed.headers['ratelimit-policy'], '"default";q=4;w=120');
    assert.equal(parseRateLimit(failed).r, 1);
  });
});

describe(`counters across two instances, ${mode}`, () => {
  let db: TestDatabase;
  let one: PublicTestApp;
  let two: PublicTestApp;
  before(async () => {
    db = await createTestDatabase();
    await insertAccount(db.pool, 'C1');
    // Two service instances: each builds its own limiter, as two processes would, on one namespace.
    const keyPrefix = testKeyPrefix();
    one = await buildPublicTestApp(db.pool, { limiter: await createRateLimiter({ redisUrl, keyPrefix }) });
    two = await buildPublicTestApp(db.pool, { limiter: await createRateLimiter({ redisUrl, keyPrefix }) });
  });
  after(async () => {
    await one.close();
    await two.close();
    await one.limiter.close();
    await two.limiter.close();
    await db.drop();
  });

  it(redisUrl ? 'share one quota through Redis' : 'count per process', async () => {
    const key = await newKey(db.pool, { kind: 'integrator', rateLimit: 3, windowS: 120 });
    const call = (app: PublicTestApp) =>
      app.app.inject({ method: 'GET', url: WHOAMI, headers: { 'x-api-key': key.key, 'x-customer-no': 'C1' } });
    assert.equal((await call(one)).statusCode, 200);
    assert.equal((await call(one)).statusCode, 200);
    const fromTwo = await call(two);
    assert.equal(fromTwo.statusCode, 200);
    if (redisUrl) {
      assert.equal(parseRateLimit(fromTwo).r, 0, 'the second instance sees the first one\'s two requests');
      assert.equal((await call(two)).statusCode, 429);
      assert.equal((await call(one)).statusCode, 429);
    } else {
      assert.equal(parseRateLimit(fromTwo).r, 2, 'the second instance counts only its own request');
      assert.equal((await call(two)).statusCode, 200);
      assert.equal((await call(one)).statusCode, 200);
      assert.equal((await call(one)).statusCode, 429, 'the first instance still enforces its own count');
    }
  });
});

describe('when Redis is unreachable', () => {
  it('starts anyway, logs a warning and counts per process (fails open, still bounded)', async () => {
    const { logger, lines } = capturingLogger();
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const limiter = await createRateLimiter({ redisUrl: 'redis://127.0.0.1:1', logger, keyPrefix: testKeyPrefix(), connectTimeoutMs: 500 });
    try {
      assert.equal(limiter.shared, true, 'configured for Redis');
      const policy = { limit: 2, windowS: 60 };
      const first = await limiter.consume('k1', policy);
      assert.deepEqual({ allowed: first.allowed, remaining: first.remaining, degraded: first.degraded }, { allowed: true, remaining: 1, degraded: true });
      assert.equal((await limiter.consume('k1', policy)).allowed, true);
      const third = await limiter.consume('k1', policy);
      assert.equal(third.allowed, false, 'the per-process fallback still enforces the quota');
      assert.equal((await limiter.consume('k2', policy)).allowed, true);
      const warnings = lines.filter((l) => l.level === 40 && /Redis is unavailable/.test(l.msg));
      assert.ok(warnings.length >= 1, 'an operator is told');
      assert.ok(warnings.length <= 2, 'but not once per request');
    } finally {
      await limiter.close();
    }
  });
});

describe('header syntax', () => {
  it('renders the draft\'s structured fields', () => {
    assert.deepEqual(
      rateLimitHeaders({ allowed: true, policy: { limit: 600, windowS: 60 }, remaining: 599, resetS: 60, degraded: false }),
      { 'ratelimit-policy': '"default";q=600;w=60', ratelimit: '"default";r=599;t=60' },
    );
  });
});
