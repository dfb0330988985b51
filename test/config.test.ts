import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { ConfigError, loadConfig } from '../src/config.js';

const SECRET = 'a-shared-secret-that-is-at-least-32-chars';
const PEM = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n';

/** Asserts `loadConfig(env)` stops with a ConfigError naming `variable` (in the message, not only the field). */
function assertRefused(env: Record<string, string | undefined>, variable: string, reason?: RegExp): void {
  assert.throws(() => loadConfig(env), (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.equal(error.name, 'ConfigError');
    assert.equal(error.variable, variable);
    assert.match(error.message, new RegExp(`\\b${variable}\\b`));
    if (reason) assert.match(error.message, reason);
    return true;
  });
}

/** The ConfigError `loadConfig(env)` stops with. */
function refusal(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig: defaults', () => {
  const config = loadConfig({});

  it('listens on port 3000 on all interfaces', () => {
    assert.equal(config.port, 3000);
    assert.equal(config.host, '0.0.0.0');
  });

  it('resolves DATA_DIR (default ./data) to an absolute path', () => {
    assert.ok(path.isAbsolute(config.dataDir));
    assert.equal(config.dataDir, path.resolve('./data'));
    const relative = loadConfig({ DATA_DIR: 'some/dir' });
    assert.equal(relative.dataDir, path.resolve('some/dir'));
    assert.ok(path.isAbsolute(relative.dataDir));
  });

  it('uses AUD, log level info, a 2000 ms search refresh and a pool of 10', () => {
    assert.equal(config.siteCurrency, 'AUD');
    assert.equal(config.siteTimeZone, 'UTC');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.logFormat, 'auto', 'human-readable at a terminal, JSON otherwise');
    assert.equal(config.searchRefreshIntervalMs, 2000);
    assert.equal(config.databasePoolSize, 10);
  });

  it('gives a shutdown 20 s before it exits anyway; SHUTDOWN_GRACE_MS changes that, in whole milliseconds from 100', () => {
    assert.equal(config.shutdownGraceMs, 20_000);
    assert.equal(loadConfig({ SHUTDOWN_GRACE_MS: '1500' }).shutdownGraceMs, 1500);
    assertRefused({ SHUTDOWN_GRACE_MS: '50' }, 'SHUTDOWN_GRACE_MS', /between 100 and 600000/);
    assertRefused({ SHUTDOWN_GRACE_MS: '2s' }, 'SHUTDOWN_GRACE_MS');
  });

  it('writes at most 2 integration batches at once per process, each waiting up to 10 s in a queue of 64; INTEGRATION_WRITE_* change that', () => {
    assert.deepEqual(config.integrationWrites, { concurrency: 2, maxWaitMs: 10_000, maxWaiting: 64, dutyPercent: 2 });
    assert.deepEqual(
      loadConfig({ INTEGRATION_WRITE_CONCURRENCY: '4', INTEGRATION_WRITE_WAIT_MS: '0', INTEGRATION_WRITE_QUEUE: '0' }).integrationWrites,
      { concurrency: 4, maxWaitMs: 0, maxWaiting: 0, dutyPercent: 2 },
    );
    // The default leaves a connection for reads with a small pool.
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '2' }).integrationWrites.concurrency, 1);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '1' }).integrationWrites.concurrency, 1);
    assertRefused({ DATABASE_POOL_SIZE: '4', INTEGRATION_WRITE_CONCURRENCY: '4' }, 'INTEGRATION_WRITE_CONCURRENCY', /below DATABASE_POOL_SIZE \(4\)/);
    assertRefused({ INTEGRATION_WRITE_CONCURRENCY: '0' }, 'INTEGRATION_WRITE_CONCURRENCY');
    assertRefused({ INTEGRATION_WRITE_WAIT_MS: '-1' }, 'INTEGRATION_WRITE_WAIT_MS');
  });

  it('opens the whole pool before listening unless DATABASE_POOL_WARM says fewer, never more than the pool holds', () => {
    assert.equal(config.databasePoolWarm, 10);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolWarm, 4, 'the pool size, whatever it is');
    assert.equal(loadConfig({ DATABASE_POOL_WARM: '0' }).databasePoolWarm, 0);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '20', DATABASE_POOL_WARM: '5' }).databasePoolWarm, 5);
    assertRefused({ DATABASE_POOL_SIZE: '4', DATABASE_POOL_WARM: '5' }, 'DATABASE_POOL_WARM', /at most DATABASE_POOL_SIZE \(4\)/);
    assertRefused({ DATABASE_POOL_WARM: '-1' }, 'DATABASE_POOL_WARM');
  });

  it('sheds load above a 250 ms event-loop delay, 90 % of V8\'s heap limit or 100 queries waiting for a connection; SHED_* change that, 0 turns a check off', () => {
    const limit = getHeapStatistics().heap_size_limit;
    assert.equal(config.shedding.maxEventLoopDelayMs, 250);
    assert.equal(config.shedding.maxHeapUsedBytes, Math.floor(limit * 0.9));
    assert.equal(config.shedding.maxPoolWaiting, 100);
    assert.deepEqual(
      loadConfig({ SHED_EVENT_LOOP_DELAY_MS: '0', SHED_HEAP_USED_PERCENT: '0', SHED_DB_WAITING: '0' }).shedding,
      { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 0, maxPoolWaiting: 0 },
    );
    assertRefused({ SHED_DB_WAITING: '-5' }, 'SHED_DB_WAITING');
    assert.equal(loadConfig({ SHED_HEAP_USED_PERCENT: '50' }).shedding.maxHeapUsedBytes, Math.floor(limit * 0.5));
    assertRefused({ SHED_HEAP_USED_PERCENT: '101' }, 'SHED_HEAP_USED_PERCENT', /between 0 and 100/);
    assertRefused({ SHED_EVENT_LOOP_DELAY_MS: 'soon' }, 'SHED_EVENT_LOOP_DELAY_MS');
  });

  it('bounds V8\'s heap growth to twice what survived its last full collection; HEAP_GROWING_PERCENT changes that, 0 leaves it to V8', () => {
    assert.equal(config.heapGrowingPercent, 100);
    assert.equal(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent, 0);
    assert.equal(loadConfig({ HEAP_GROWING_PERCENT: '50' }).heapGrowingPercent, 50);
    assertRefused({ HEAP_GROWING_PERCENT: '301' }, 'HEAP_GROWING_PERCENT', /between 0 and 300/);
    assertRefused({ HEAP_GROWING_PERCENT: '-1' }, 'HEAP_GROWING_PERCENT');
  });

  it('leaves the optional services unset (embedded database, no Redis, no SMTP, no ERP)', () => {
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.erpUrl, undefined);
  });

  it('with no JWT setting, uses a generated HS256 secret and checks no iss/aud', () => {
    assert.deepEqual(config.integrationJwt, { key: { kind: 'generated' }, algorithm: 'HS256', issuer: undefined, audience: undefined });
  });
});

describe('loadConfig: given values', () => {
  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/var/lib/portway',
      DATABASE_URL: 'postgresql://u:p@db:5432/portway',
      DATABASE_POOL_SIZE: '25',
      REDIS_URL: 'rediss://cache:6380',
      SITE_CURRENCY: 'NZD',
      INTEGRATION_JWT_SECRET: SECRET,
      INTEGRATION_JWT_ISSUER: 'erp',
      INTEGRATION_JWT_AUDIENCE: 'portway',
      SEARCH_REFRESH_INTERVAL_MS: '500',
      SMTP_URL: 'smtps://mail:465',
      ERP_URL: 'https://erp.example.com',
      SITE_TIME_ZONE: 'Australia/Sydney',
      LOG_LEVEL: 'debug',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, '/var/lib/portway');
    assert.equal(config.databaseUrl, 'postgresql://u:p@db:5432/portway');
    assert.equal(config.databasePoolSize, 25);
    assert.equal(config.redisUrl, 'rediss://cache:6380');
    assert.equal(config.siteCurrency, 'NZD');
    assert.equal(config.siteTimeZone, 'Australia/Sydney');
    assert.deepEqual(config.integrationJwt, {
      key: { kind: 'secret', secret: SECRET }, algorithm: 'HS256', issuer: 'erp', audience: 'portway',
    });
    assert.equal(config.searchRefreshIntervalMs, 500);
    assert.equal(config.smtpUrl, 'smtps://mail:465');
    assert.equal(config.erpUrl, 'https://erp.example.com');
    assert.equal(config.erp.url, 'https://erp.example.com');
    assert.equal(config.logLevel, 'debug');
  });

  it('reads LOG_FORMAT json, pretty or auto', () => {
    for (const format of ['json', 'pretty', 'auto'] as const) assert.equal(loadConfig({ LOG_FORMAT: format }).logFormat, format);
  });

  it('accepts postgres:// as well as postgresql://, redis:// and smtp://', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://r', SMTP_URL: 'smtp://m:25' });
    assert.equal(config.databaseUrl, 'postgres://x/y');
    assert.equal(config.redisUrl, 'redis://r');
    assert.equal(config.smtpUrl, 'smtp://m:25');
  });

  it('reads DATABASE_SESSION_URL beside DATABASE_URL; unset, or the same URL, means no pooler in transaction mode', () => {
    const pooled = loadConfig({ DATABASE_URL: 'postgres://u:p@bouncer:6432/portway', DATABASE_SESSION_URL: 'postgres://u:p@db:5432/portway' });
    assert.equal(pooled.databaseUrl, 'postgres://u:p@bouncer:6432/portway');
    assert.equal(pooled.databaseSessionUrl, 'postgres://u:p@db:5432/portway');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db/p' }).databaseSessionUrl, undefined);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db/p', DATABASE_SESSION_URL: 'postgres://db/p' }).databaseSessionUrl, undefined);
  });

  it('defaults the algorithm to RS256 with a public key or a JWKS URL, and allows ES256', () => {
    assert.deepEqual(loadConfig({ INTEGRATION_JWT_PUBLIC_KEY: PEM }).integrationJwt.key, { kind: 'publicKey', pem: PEM });
    assert.equal(loadConfig({ INTEGRATION_JWT_PUBLIC_KEY: PEM }).integrationJwt.algorithm, 'RS256');
    const jwks = loadConfig({ INTEGRATION_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json' }).integrationJwt;
    assert.deepEqual(jwks.key, { kind: 'jwks', url: 'https://idp.example.com/.well-known/jwks.json' });
    assert.equal(jwks.algorithm, 'RS256');
    assert.equal(loadConfig({ INTEGRATION_JWKS_URL: 'https://i/j', INTEGRATION_JWT_ALGORITHM: 'ES256' }).integrationJwt.algorithm, 'ES256');
  });

  it('believes no proxy by default; TRUST_PROXY takes true, false, a hop count, or proxy addresses and ranges', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,loopback, ::1, fd00::/8' }).trustProxy, ['10.0.0.1', '10.1.0.0/16', 'loopback', '::1', 'fd00::/8']);
  });

  it('ignores variables it does not know', () => {
    assert.equal(loadConfig({ PORTT: 'abc', UNRELATED: 'x' }).port, 3000);
  });
});

describe('loadConfig: mail and job worker', () => {
  it('defaults: worker in the service with 8 jobs at once, invitation links on http://localhost:PORT', () => {
    const config = loadConfig({ PORT: '8080' });
    assert.deepEqual(config.worker, { inProcess: true, concurrency: 8, deadAfterMs: 30_000 });
    assert.equal(config.publicUrl, 'http://localhost:8080');
    assert.equal(config.mailFrom, 'Portway <no-reply@portway.invalid>');
  });

  it('reads MAIL_FROM, PUBLIC_URL (without its trailing slash), WORKER_IN_PROCESS, WORKER_CONCURRENCY and WORKER_DEAD_AFTER_MS', () => {
    const config = loadConfig({
      MAIL_FROM: 'B2B <b2b@example.com>', PUBLIC_URL: 'https://b2b.example.com/', WORKER_IN_PROCESS: 'false', WORKER_CONCURRENCY: '5', WORKER_DEAD_AFTER_MS: '6000',
    });
    assert.equal(config.mailFrom, 'B2B <b2b@example.com>');
    assert.equal(config.publicUrl, 'https://b2b.example.com');
    assert.deepEqual(config.worker, { inProcess: false, concurrency: 5, deadAfterMs: 6000 });
  });
});

describe('loadConfig: ERP hand-off', () => {
  it('defaults: the in-process stand-in, a 10 s timeout, retries after 1 s doubling up to 1 h', () => {
    assert.deepEqual(loadConfig({}).erp, { url: undefined, timeoutMs: 10_000, retryBaseMs: 1000, retryMaxMs: 3_600_000 });
  });

  it('reads ERP_URL, ERP_TIMEOUT_MS, ERP_RETRY_BASE_MS and ERP_RETRY_MAX_MS; erpUrl stays the same URL', () => {
    const config = loadConfig({ ERP_URL: 'https://erp.example.com/api/', ERP_TIMEOUT_MS: '2500', ERP_RETRY_BASE_MS: '50', ERP_RETRY_MAX_MS: '60000' });
    assert.deepEqual(config.erp, { url: 'https://erp.example.com/api/', timeoutMs: 2500, retryBaseMs: 50, retryMaxMs: 60_000 });
    assert.equal(config.erpUrl, 'https://erp.example.com/api/');
    assert.ok(Object.isFrozen(config.erp));
  });

  it('accepts each bound exactly, and a maximum equal to the base', () => {
    const low = loadConfig({ ERP_TIMEOUT_MS: '100', ERP_RETRY_BASE_MS: '100', ERP_RETRY_MAX_MS: '100' }).erp;
    assert.deepEqual([low.timeoutMs, low.retryBaseMs, low.retryMaxMs], [100, 100, 100]);
    const high = loadConfig({ ERP_TIMEOUT_MS: '600000', ERP_RETRY_BASE_MS: '3600000', ERP_RETRY_MAX_MS: '86400000' }).erp;
    assert.deepEqual([high.timeoutMs, high.retryBaseMs, high.retryMaxMs], [600_000, 3_600_000, 86_400_000]);
    assert.equal(loadConfig({ ERP_RETRY_BASE_MS: '10', ERP_RETRY_MAX_MS: '100' }).erp.retryBaseMs, 10);
  });

  const refused: Array<[string, Record<string, string>, string, RegExp]> = [
    ['ERP_TIMEOUT_MS below 100', { ERP_TIMEOUT_MS: '99' }, 'ERP_TIMEOUT_MS', /between 100 and 600000/],
    ['ERP_TIMEOUT_MS above 600000', { ERP_TIMEOUT_MS: '600001' }, 'ERP_TIMEOUT_MS', /between 100 and 600000/],
    ['ERP_TIMEOUT_MS in seconds', { ERP_TIMEOUT_MS: '10s' }, 'ERP_TIMEOUT_MS', /whole number/],
    ['ERP_RETRY_BASE_MS below 10', { ERP_RETRY_BASE_MS: '9' }, 'ERP_RETRY_BASE_MS', /between 10 and 3600000/],
    ['ERP_RETRY_BASE_MS above 3600000', { ERP_RETRY_BASE_MS: '3600001', ERP_RETRY_MAX_MS: '86400000' }, 'ERP_RETRY_BASE_MS', /between 10 and 3600000/],
    ['ERP_RETRY_BASE_MS with a fraction', { ERP_RETRY_BASE_MS: '50.5' }, 'ERP_RETRY_BASE_MS', /whole number/],
    ['ERP_RETRY_MAX_MS below 100', { ERP_RETRY_MAX_MS: '99' }, 'ERP_RETRY_MAX_MS', /between 100 and 86400000/],
    ['ERP_RETRY_MAX_MS above 86400000', { ERP_RETRY_MAX_MS: '86400001' }, 'ERP_RETRY_MAX_MS', /between 100 and 86400000/],
    ['ERP_RETRY_MAX_MS below ERP_RETRY_BASE_MS', { ERP_RETRY_BASE_MS: '5000', ERP_RETRY_MAX_MS: '4999' }, 'ERP_RETRY_MAX_MS', /not be below ERP_RETRY_BASE_MS \(5000\)/],
    ['ERP_RETRY_MAX_MS below the default base', { ERP_RETRY_MAX_MS: '500' }, 'ERP_RETRY_MAX_MS', /not be below ERP_RETRY_BASE_MS \(1000\)/],
  ];
  for (const [label, env, variable, reason] of refused) {
    it(`refuses ${label}`, () => assertRefused(env, variable, reason));
  }
});

describe('loadConfig: read replicas', () => {
  const primary = 'postgres://app:secret@db-primary:5432/portway';
  it('has none by default; a replica is skipped past 5 s of lag, checked every second', () => {
    assert.deepEqual(loadConfig({}).readReplicas, { urls: [], maxLagMs: 5000, checkIntervalMs: 1000 });
  });
  it('reads DATABASE_READ_URL as one or more URLs separated by commas, READ_MAX_LAG_MS and READ_CHECK_INTERVAL_MS', () => {
    const config = loadConfig({
      DATABASE_URL: primary, DATABASE_READ_URL: ' postgres://app:secret@db-r1/portway, postgresql://db-r2:5433/portway ,',
      READ_MAX_LAG_MS: '0', READ_CHECK_INTERVAL_MS: '250',
    });
    assert.deepEqual(config.readReplicas, {
      urls: ['postgres://app:secret@db-r1/portway', 'postgresql://db-r2:5433/portway'], maxLagMs: 0, checkIntervalMs: 250,
    });
    assert.ok(Object.isFrozen(config.readReplicas.urls));
  });
  it('refuses replicas without DATABASE_URL: the embedded database has no replica', () => {
    assertRefused({ DATABASE_READ_URL: 'postgres://db-r1/portway' }, 'DATABASE_READ_URL', /needs DATABASE_URL/);
  });
  it('refuses a list holding anything but postgres:// URLs, naming its position and never its text', () => {
    for (const value of ['mysql://r1', ' , ', 'postgres://a@r1/x,redis://:hunter2@r2']) {
      const error = refusal({ DATABASE_URL: primary, DATABASE_READ_URL: value });
      assert.equal(error.variable, 'DATABASE_READ_URL');
      assert.doesNotMatch(error.message, /hunter2/);
    }
    assert.match(refusal({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://r1/x,redis://:hunter2@r2' }).message, /URL 2 of 2/);
  });
  it('refuses a lag or an interval out of range', () => {
    assertRefused({ READ_MAX_LAG_MS: '-1' }, 'READ_MAX_LAG_MS', /between 0 and 3600000/);
    assertRefused({ READ_CHECK_INTERVAL_MS: '10' }, 'READ_CHECK_INTERVAL_MS', /between 50 and 600000/);
  });
});

describe('loadConfig: a bad value stops with a ConfigError naming the variable', () => {
  const cases: Array<[string, Record<string, string>, string, RegExp?]> = [
    ['PORT not a number', { PORT: 'abc' }, 'PORT', /whole number/],
    ['PORT above 65535', { PORT: '70000' }, 'PORT', /between 0 and 65535/],
    ['PORT negative', { PORT: '-1' }, 'PORT'],
    ['PORT with a fraction', { PORT: '3000.5' }, 'PORT', /whole number/],
    ['PORT as a boolean word', { PORT: 'true' }, 'PORT', /whole number/],
    ['PORT in hexadecimal', { PORT: '0x10' }, 'PORT', /whole number/],
    ['PORT in exponent notation', { PORT: '1e3' }, 'PORT', /whole number/],
    ['SITE_CURRENCY lower case', { SITE_CURRENCY: 'usd' }, 'SITE_CURRENCY'],
    ['SITE_CURRENCY too long', { SITE_CURRENCY: 'AUDX' }, 'SITE_CURRENCY'],
    ['SITE_TIME_ZONE not a time zone', { SITE_TIME_ZONE: 'Mars/Olympus' }, 'SITE_TIME_ZONE', /IANA time zone/],
    ['DATABASE_URL not PostgreSQL', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    ['DATABASE_SESSION_URL not PostgreSQL', { DATABASE_URL: 'postgres://bouncer/p', DATABASE_SESSION_URL: 'mysql://x' }, 'DATABASE_SESSION_URL'],
    ['DATABASE_SESSION_URL without DATABASE_URL', { DATABASE_SESSION_URL: 'postgres://db/p' }, 'DATABASE_SESSION_URL', /needs DATABASE_URL/],
    ['DATABASE_POOL_SIZE zero', { DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    ['REDIS_URL not redis', { REDIS_URL: 'http://x' }, 'REDIS_URL'],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of .*info/],
    ['LOG_LEVEL in the wrong case', { LOG_LEVEL: 'INFO' }, 'LOG_LEVEL'],
    ['LOG_FORMAT unknown', { LOG_FORMAT: 'text' }, 'LOG_FORMAT', /one of auto, json, pretty/],
    ['SEARCH_REFRESH_INTERVAL_MS negative', { SEARCH_REFRESH_INTERVAL_MS: '-1' }, 'SEARCH_REFRESH_INTERVAL_MS'],
    ['SEARCH_REFRESH_INTERVAL_MS not a number', { SEARCH_REFRESH_INTERVAL_MS: 'fast' }, 'SEARCH_REFRESH_INTERVAL_MS'],
    ['SEARCH_REFRESH_INTERVAL_MS with a fraction', { SEARCH_REFRESH_INTERVAL_MS: '1500.5' }, 'SEARCH_REFRESH_INTERVAL_MS'],
    ['INTEGRATION_JWT_SECRET too short', { INTEGRATION_JWT_SECRET: 'short-secret' }, 'INTEGRATION_JWT_SECRET', /at least 32/],
    ['INTEGRATION_JWT_PUBLIC_KEY not a PEM public key', { INTEGRATION_JWT_PUBLIC_KEY: 'ssh-rsa AAAA' }, 'INTEGRATION_JWT_PUBLIC_KEY'],
    ['INTEGRATION_JWKS_URL not http(s)', { INTEGRATION_JWKS_URL: 'file:///etc/jwks.json' }, 'INTEGRATION_JWKS_URL'],
    ['INTEGRATION_JWT_ALGORITHM not supported', { INTEGRATION_JWT_ALGORITHM: 'none' }, 'INTEGRATION_JWT_ALGORITHM'],
    ['SMTP_URL not smtp', { SMTP_URL: 'ftp://x' }, 'SMTP_URL'],
    ['ERP_URL not http(s)', { ERP_URL: 'erp.local' }, 'ERP_URL'],
    ['PUBLIC_URL not http(s)', { PUBLIC_URL: 'b2b.example.com' }, 'PUBLIC_URL'],
    ['WORKER_IN_PROCESS not true/false', { WORKER_IN_PROCESS: 'yes' }, 'WORKER_IN_PROCESS', /one of true, false/],
    ['WORKER_CONCURRENCY zero', { WORKER_CONCURRENCY: '0' }, 'WORKER_CONCURRENCY', /between 1 and 50/],
    ['WORKER_DEAD_AFTER_MS below 2 s', { WORKER_DEAD_AFTER_MS: '1999' }, 'WORKER_DEAD_AFTER_MS', /between 2000 and 3600000/],
    ['MAIL_FROM too short', { MAIL_FROM: 'x' }, 'MAIL_FROM'],
    ['TRUST_PROXY a host name', { TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY', /"proxy\.internal" is none of these/],
    ['TRUST_PROXY a range too wide', { TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY', /"10\.0\.0\.0\/33"/],
    ['TRUST_PROXY an empty list', { TRUST_PROXY: ' , ' }, 'TRUST_PROXY', /none of these/],
    ['TRUST_PROXY zero hops', { TRUST_PROXY: '0' }, 'TRUST_PROXY', /between 1 and 100/],
    ['TRUST_PROXY a yes', { TRUST_PROXY: 'yes' }, 'TRUST_PROXY', /true, false, a number of proxy hops/],
  ];
  for (const [label, env, variable, reason] of cases) {
    it(label, () => assertRefused(env, variable, reason));
  }

  it('refuses two key sources together, naming both', () => {
    for (const env of [
      { INTEGRATION_JWT_SECRET: SECRET, INTEGRATION_JWT_PUBLIC_KEY: PEM },
      { INTEGRATION_JWT_SECRET: SECRET, INTEGRATION_JWKS_URL: 'https://i/j' },
      { INTEGRATION_JWT_PUBLIC_KEY: PEM, INTEGRATION_JWKS_URL: 'https://i/j' },
    ]) {
      const [first, second] = Object.keys(env) as [string, string];
      assertRefused(env, second, new RegExp(`${first}.*exactly one key source`));
    }
  });

  it('refuses RS256 or ES256 with a shared secret', () => {
    assertRefused({ INTEGRATION_JWT_SECRET: SECRET, INTEGRATION_JWT_ALGORITHM: 'RS256' }, 'INTEGRATION_JWT_ALGORITHM', /HS256/);
    assertRefused({ INTEGRATION_JWT_SECRET: SECRET, INTEGRATION_JWT_ALGORITHM: 'ES256' }, 'INTEGRATION_JWT_ALGORITHM', /HS256/);
  });

  it('refuses RS256 with the generated dev secret (no key source)', () => {
    assertRefused({ INTEGRATION_JWT_ALGORITHM: 'RS256' }, 'INTEGRATION_JWT_ALGORITHM');
  });

  it('refuses HS256 with a public key or JWKS URL', () => {
    assertRefused({ INTEGRATION_JWT_PUBLIC_KEY: PEM, INTEGRATION_JWT_ALGORITHM: 'HS256' }, 'INTEGRATION_JWT_ALGORITHM', /RS256 or ES256/);
    assertRefused({ INTEGRATION_JWKS_URL: 'https://i/j', INTEGRATION_JWT_ALGORITHM: 'HS256' }, 'INTEGRATION_JWT_ALGORITHM');
  });
});

describe('loadConfig: empty values and the result', () => {
  it('treats an empty string as unset', () => {
    const config = loadConfig({
      PORT: '', HOST: '', DATA_DIR: '', SITE_CURRENCY: '', LOG_LEVEL: '', LOG_FORMAT: '', SEARCH_REFRESH_INTERVAL_MS: '',
      DATABASE_URL: '', REDIS_URL: '', SMTP_URL: '', ERP_URL: '', ERP_TIMEOUT_MS: '', ERP_RETRY_BASE_MS: '', ERP_RETRY_MAX_MS: '',
      INTEGRATION_JWT_SECRET: '', INTEGRATION_JWT_PUBLIC_KEY: '', INTEGRATION_JWKS_URL: '', INTEGRATION_JWT_ALGORITHM: '',
      INTEGRATION_JWT_ISSUER: '', INTEGRATION_JWT_AUDIENCE: '',
    });
    assert.deepEqual(config, loadConfig({}));
  });

  it('an empty key source does not count as a second one', () => {
    const config = loadConfig({ INTEGRATION_JWT_SECRET: SECRET, INTEGRATION_JWT_PUBLIC_KEY: '', INTEGRATION_JWKS_URL: '' });
    assert.equal(config.integrationJwt.key.kind, 'secret');
  });

  it('reads process.env when given no argument', () => {
    const saved = process.env.SITE_CURRENCY;
    process.env.SITE_CURRENCY = 'GBP';
    try {
      assert.equal(loadConfig().siteCurrency, 'GBP');
    } finally {
      if (saved === undefined) delete process.env.SITE_CURRENCY;
      else process.env.SITE_CURRENCY = saved;
    }
  });

  it('does not modify the env object it is given', () => {
    const env = { PORT: '8080', HOST: '' };
    loadConfig(env);
    assert.deepEqual(env, { PORT: '8080', HOST: '' });
  });

  it('returns a frozen object, down to the JWT key', () => {
    const config = loadConfig({ INTEGRATION_JWT_SECRET: SECRET });
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.integrationJwt));
    assert.ok(Object.isFrozen(config.integrationJwt.key));
    assert.throws(() => { (config as { port: number }).port = 1; }, TypeError);
    assert.throws(() => { (config.integrationJwt as { algorithm: string }).algorithm = 'none'; }, TypeError);
    assert.throws(() => { (config.integrationJwt.key as { secret: string }).secret = 'x'; }, TypeError);
    assert.equal(config.port, 3000);
    assert.equal(config.integrationJwt.algorithm, 'HS256');
  });
});
