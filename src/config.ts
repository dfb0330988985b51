import { isIP } from 'node:net';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { isTimeZone } from './platform/day.js';

/**
 * The one place that reads the environment. Every variable is declared here with its type and
 * default; `loadConfig` fails fast with a message naming the variable, so a typo in a deployment
 * stops the start instead of surfacing as a confusing runtime error later.
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '0.0.0.0' }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_SESSION_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  // No default in the schema: DATABASE_POOL_SIZE's (see loadConfig).
  DATABASE_POOL_WARM: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })),
  // One or more replica URLs, comma-separated: parsed by parseReadUrls (the schema cannot say "a list of").
  DATABASE_READ_URL: Type.Optional(Type.String({ minLength: 1 })),
  READ_MAX_LAG_MS: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 5000 }),
  READ_CHECK_INTERVAL_MS: Type.Integer({ minimum: 50, maximum: 600_000, default: 1000 }),
  // No default in the schema: it depends on DATABASE_POOL_SIZE (see loadConfig).
  INTEGRATION_WRITE_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1, maximum: 199 })),
  INTEGRATION_WRITE_WAIT_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000 }),
  INTEGRATION_WRITE_QUEUE: Type.Integer({ minimum: 0, maximum: 10_000, default: 64 }),
  INTEGRATION_WRITE_DUTY_PERCENT: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
  SHED_EVENT_LOOP_DELAY_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 250 }),
  SHED_HEAP_USED_PERCENT: Type.Integer({ minimum: 0, maximum: 100, default: 90 }),
  SHED_DB_WAITING: Type.Integer({ minimum: 0, maximum: 100_000, default: 100 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  SITE_CURRENCY: Type.String({ pattern: '^[A-Z]{3}$', default: 'AUD' }),
  SITE_TIME_ZONE: Type.String({ minLength: 1, default: 'UTC' }),
  INTEGRATION_JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  INTEGRATION_JWT_PUBLIC_KEY: Type.Optional(Type.String({ pattern: '-----BEGIN PUBLIC KEY-----' })),
  INTEGRATION_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  INTEGRATION_JWT_ALGORITHM: Type.Optional(Type.Union([Type.Literal('HS256'), Type.Literal('RS256'), Type.Literal('ES256')])),
  INTEGRATION_JWT_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  INTEGRATION_JWT_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  SEARCH_REFRESH_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 2000 }),
  LOOKUP_CACHE_MAX_MB: Type.Integer({ minimum: 1, maximum: 65_536, default: 48 }),
  SEARCH_CACHE_MAX_MB: Type.Integer({ minimum: 0, maximum: 65_536, default: 16 }),
  HEAP_GROWING_PERCENT: Type.Integer({ minimum: 0, maximum: 300, default: 100 }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  ERP_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  ERP_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
  ERP_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000 }),
  ERP_RETRY_MAX_MS: Type.Integer({ minimum: 100, maximum: 86_400_000, default: 3_600_000 }),
  MAIL_FROM: Type.String({ minLength: 3, default: 'Portway <no-reply@portway.invalid>' }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  PORTAL_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 5, maximum: 43_200, default: 720 }),
  PORTAL_SESSION_MAX_HOURS: Type.Integer({ minimum: 1, maximum: 8_760, default: 168 }),
  WORKER_IN_PROCESS: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'true' }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 50, default: 8 }),
  WORKER_DEAD_AFTER_MS: Type.Integer({ minimum: 2000, maximum: 3_600_000, default: 30_000 }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 20_000 }),
  SHUTDOWN_DRAIN_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 0 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], { default: 'auto' }),
});

type Env = Static<typeof EnvSchema>;

export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

/** Where the integration surface's JWT verification key comes from. */
export type IntegrationJwtKey =
  | { kind: 'secret'; secret: string }
  | { kind: 'generated' }
  | { kind: 'publicKey'; pem: string }
  | { kind: 'jwks'; url: string };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /**
   * Where the connections that need a session go (migrations, the search indexer's lock and LISTEN,
   * the job queue) when `databaseUrl` is a pooler in transaction mode; undefined: `databaseUrl`
   * (or the embedded server) serves both. Set, it makes the request pool keep no session state
   * (src/platform/db/pool.ts `transactionPooler`).
   */
  readonly databaseSessionUrl: string | undefined;
  readonly databasePoolSize: number;
  /** Connections of the pool opened, and each warmed with the lookup's statements, before the service listens. */
  readonly databasePoolWarm: number;
  /**
   * Streaming replicas for the reads that tolerate a bounded staleness (src/platform/db/replicas.ts):
   * none unless DATABASE_READ_URL is set. A replica lagging more than `maxLagMs` behind its primary,
   * or not answering, is skipped until a check (every `checkIntervalMs`) finds it well again.
   */
  readonly readReplicas: { readonly urls: readonly string[]; readonly maxLagMs: number; readonly checkIntervalMs: number };
  /**
   * Integration batches (the 12 integration endpoints and the admin ones) writing at once per
   * process, and how long and how many of the others may wait for a turn (src/platform/http/write-gate.ts).
   * Always below the pool size, so a buyer's read finds a connection however much is pushed.
   */
  readonly integrationWrites: { readonly concurrency: number; readonly maxWaitMs: number; readonly maxWaiting: number; readonly dutyPercent: number };
  /**
   * Load shedding (@fastify/under-pressure, app.ts): above either threshold a request is answered
   * 503 `…:overloaded` at once instead of queueing; /healthz and /metrics are never refused. 0 turns
   * a check off. The heap threshold is in bytes, from SHED_HEAP_USED_PERCENT of V8's heap limit;
   * `maxPoolWaiting` is the queries waiting for a pool connection (a database that cannot keep up
   * leaves the event loop idle and the queue growing).
   */
  readonly shedding: { readonly maxEventLoopDelayMs: number; readonly maxHeapUsedBytes: number; readonly maxPoolWaiting: number };
  readonly redisUrl: string | undefined;
  readonly siteCurrency: string;
  /** IANA time zone whose calendar date is "the day" of tax rates and overdue ledger entries (platform/day.ts). */
  readonly siteTimeZone: string;
  readonly integrationJwt: {
    readonly key: IntegrationJwtKey;
    readonly algorithm: JwtAlgorithm;
    readonly issuer: string | undefined;
    readonly audience: string | undefined;
  };
  readonly searchRefreshIntervalMs: number;
  /** MiB of decoded products the public lookup holds per process (src/modules/lookup/product-cache.ts). */
  readonly lookupCacheMaxMb: number;
  /** MiB of search and suggest answers each process keeps (src/modules/search/search.cache.ts); 0 keeps none. */
  readonly searchCacheMaxMb: number;
  /** V8's old space may grow to (1 + this/100) × what survived its last full collection; 0: V8's own choice (up to 4×). */
  readonly heapGrowingPercent: number;
  readonly smtpUrl: string | undefined;
  /** The same as `erp.url`. */
  readonly erpUrl: string | undefined;
  /**
   * The ERP hand-off (src/modules/orders/erp-handoff.job.ts): with no url, the in-process stand-in
   * accepts every order. A call that timed out, found no ERP or got a 5xx is tried again after
   * min(retryMaxMs, retryBaseMs × 2^(attempts − 1)); a refusal is final.
   */
  readonly erp: {
    readonly url: string | undefined;
    readonly timeoutMs: number;
    readonly retryBaseMs: number;
    readonly retryMaxMs: number;
  };
  /** Sender of portal invitations. */
  readonly mailFrom: string;
  /** Base URL people open (invitation links); defaults to http://localhost:PORT. */
  readonly publicUrl: string;
  /**
   * Buyer portal sessions (src/portal): a session ends after `idleMinutes` without a request, and
   * `maxHours` after sign-in whatever the activity.
   */
  readonly portalSession: { readonly idleMinutes: number; readonly maxHours: number };
  /**
   * Which proxies are believed about the client's address (`X-Forwarded-For`), as Fastify's
   * `trustProxy`: false (the socket's peer, the default), true (every hop), the number of proxy hops,
   * or the proxies' addresses and CIDR ranges. The client address is what the portal's sign-in and
   * reset limits count per address; behind a proxy that is not trusted, every buyer shares one.
   */
  readonly trustProxy: boolean | number | string[];
  /**
   * `deadAfterMs`: a worker process that has not recorded a beat for this long counts as dead and
   * the jobs it held run again elsewhere (src/platform/jobs/heartbeat.ts); it beats every sixth of it.
   */
  readonly worker: { readonly inProcess: boolean; readonly concurrency: number; readonly deadAfterMs: number };
  /** How long a SIGTERM/SIGINT shutdown may take before the process exits anyway (code 1). */
  readonly shutdownGraceMs: number;
  /**
   * On SIGTERM, how long /readyz answers 503 while requests are still served (each answer with
   * `Connection: close`) before the listener closes: a load balancer's time to notice. Not on Ctrl-C.
   */
  readonly shutdownDrainMs: number;
  readonly logLevel: string;
  /**
   * How log lines are written (src/platform/logger.ts): `json`, one JSON object a line; `pretty`,
   * one human-readable line (local time, level, message; a request as `GET /path 200 3.1 ms`);
   * `auto`, pretty when the log goes to a terminal and JSON otherwise.
   */
  readonly logFormat: 'auto' | 'json' | 'pretty';
}

export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`Invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

function describe(variable: string, schema: Record<string, unknown> | undefined): string {
  if (!schema) return 'is invalid';
  if (schema.type === 'integer') {
    return `must be a whole number between ${String(schema.minimum)} and ${String(schema.maximum)}`;
  }
  if (Array.isArray(schema.anyOf)) {
    const values = (schema.anyOf as Array<{ const?: unknown }>).map((s) => String(s.const));
    return `must be one of ${values.join(', ')}`;
  }
  if (typeof schema.pattern === 'string') return `does not have the expected form (${schema.pattern})`;
  if (typeof schema.minLength === 'number') return `must be at least ${schema.minLength} characters long`;
  return `is invalid for ${variable}`;
}

/** The names proxy-addr (Fastify's `trustProxy`) knows for ranges of private addresses. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function proxyEntryOk(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (cidr === null) return false;
  const family = isIP(cidr[1] as string);
  const bits = Number(cidr[2]);
  return family !== 0 && bits <= (family === 4 ? 32 : 128);
}

function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 100) throw new ConfigError('TRUST_PROXY', 'as a number of proxy hops must be between 1 and 100');
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const bad = entries.find((e) => !proxyEntryOk(e));
  if (bad !== undefined || entries.length === 0) {
    throw new ConfigError('TRUST_PROXY', `must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal; "${bad ?? value}" is none of these`);
  }
  return entries;
}

/**
 * DATABASE_READ_URL: one or more postgres:// URLs, comma-separated. A replica streams from a primary
 * someone runs, so replicas without DATABASE_URL (the embedded database, private to the process)
 * are refused rather than ignored.
 */
function parseReadUrls(value: string | undefined, primary: string | undefined): string[] {
  if (value === undefined) return [];
  const urls = value.split(',').map((u) => u.trim()).filter((u) => u !== '');
  const bad = urls.find((u) => {
    if (!/^postgres(ql)?:\/\//.test(u)) return true;
    try {
      return new URL(u).hostname === '';
    } catch {
      return true;
    }
  });
  if (urls.length === 0 || bad !== undefined) {
    // The URL may carry a password: the message names its position, never the text.
    const position = bad === undefined ? '' : ` (URL ${urls.indexOf(bad) + 1} of ${urls.length} is not one)`;
    throw new ConfigError('DATABASE_READ_URL', `must be one or more postgres://… URLs separated by commas${position}`);
  }
  if (primary === undefined) {
    throw new ConfigError('DATABASE_READ_URL', 'needs DATABASE_URL: read replicas stream from a primary of your own, and the embedded database has none');
  }
  return urls;
}

/** Parses and validates the environment once; the result is frozen. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const properties = EnvSchema.properties as unknown as Record<string, Record<string, unknown>>;
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(properties)) {
    const value = env[name];
    // An empty variable is treated as unset: `FOO= npm start` is how people clear a value.
    if (value !== undefined && value !== '') raw[name] = value;
    // Value.Convert is lenient with numbers ("true" → 1, "3000.5" → 3000, "0x10" → 16), which would
    // start the service on a value nobody meant; a whole-number variable must be written as digits.
    if (value && properties[name]?.type === 'integer' && !/^\s*-?\d+\s*$/.test(value)) {
      throw new ConfigError(name, describe(name, properties[name]));
    }
  }
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw));
  const errors = Value.Errors(EnvSchema, converted);
  const first = errors[0];
  if (first) {
    const variable = first.instancePath.replace(/^\//, '') || 'environment';
    throw new ConfigError(variable, describe(variable, properties[variable]));
  }
  const e = converted as Env;

  if (!isTimeZone(e.SITE_TIME_ZONE)) {
    throw new ConfigError('SITE_TIME_ZONE', `must be an IANA time zone name (e.g. UTC, Australia/Sydney); got "${e.SITE_TIME_ZONE}"`);
  }

  if (e.ERP_RETRY_MAX_MS < e.ERP_RETRY_BASE_MS) {
    throw new ConfigError('ERP_RETRY_MAX_MS', `must not be below ERP_RETRY_BASE_MS (${e.ERP_RETRY_BASE_MS})`);
  }

  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  const readUrls = parseReadUrls(e.DATABASE_READ_URL, e.DATABASE_URL);

  if (e.DATABASE_SESSION_URL !== undefined && e.DATABASE_URL === undefined) {
    throw new ConfigError('DATABASE_SESSION_URL', 'needs DATABASE_URL: it names a direct connection beside a pooled DATABASE_URL, and the embedded server has no pooler');
  }

  if (e.DATABASE_POOL_WARM !== undefined && e.DATABASE_POOL_WARM > e.DATABASE_POOL_SIZE) {
    throw new ConfigError('DATABASE_POOL_WARM', `must be at most DATABASE_POOL_SIZE (${e.DATABASE_POOL_SIZE}): the pool holds no more connections`);
  }

  // Batch writers never take the whole pool: at least one connection is left for reads.
  if (e.INTEGRATION_WRITE_CONCURRENCY !== undefined && e.INTEGRATION_WRITE_CONCURRENCY >= e.DATABASE_POOL_SIZE) {
    throw new ConfigError('INTEGRATION_WRITE_CONCURRENCY', `must be below DATABASE_POOL_SIZE (${e.DATABASE_POOL_SIZE}), so reads always find a connection`);
  }
  const writeConcurrency = e.INTEGRATION_WRITE_CONCURRENCY ?? Math.max(1, Math.min(2, e.DATABASE_POOL_SIZE - 1));

  const keySources = ['INTEGRATION_JWT_SECRET', 'INTEGRATION_JWT_PUBLIC_KEY', 'INTEGRATION_JWKS_URL'] as const;
  const given = keySources.filter((name) => e[name] !== undefined);
  if (given.length > 1) {
    throw new ConfigError(given[1] as string, `cannot be combined with ${given[0] as string}; set exactly one key source`);
  }
  let key: IntegrationJwtKey;
  if (e.INTEGRATION_JWT_SECRET) key = { kind: 'secret', secret: e.INTEGRATION_JWT_SECRET };
  else if (e.INTEGRATION_JWT_PUBLIC_KEY) key = { kind: 'publicKey', pem: e.INTEGRATION_JWT_PUBLIC_KEY };
  else if (e.INTEGRATION_JWKS_URL) key = { kind: 'jwks', url: e.INTEGRATION_JWKS_URL };
  else key = { kind: 'generated' };

  const symmetric = key.kind === 'secret' || key.kind === 'generated';
  const algorithm: JwtAlgorithm = e.INTEGRATION_JWT_ALGORITHM ?? (symmetric ? 'HS256' : 'RS256');
  if (symmetric && algorithm !== 'HS256') {
    throw new ConfigError('INTEGRATION_JWT_ALGORITHM', 'must be HS256 when the key is a shared secret');
  }
  if (!symmetric && algorithm === 'HS256') {
    throw new ConfigError('INTEGRATION_JWT_ALGORITHM', 'must be RS256 or ES256 with a public key or JWKS URL');
  }

  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databaseSessionUrl: e.DATABASE_SESSION_URL === e.DATABASE_URL ? undefined : e.DATABASE_SESSION_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databasePoolWarm: e.DATABASE_POOL_WARM ?? e.DATABASE_POOL_SIZE,
    readReplicas: Object.freeze({ urls: Object.freeze(readUrls) as string[], maxLagMs: e.READ_MAX_LAG_MS, checkIntervalMs: e.READ_CHECK_INTERVAL_MS }),
    integrationWrites: Object.freeze({
      concurrency: writeConcurrency, maxWaitMs: e.INTEGRATION_WRITE_WAIT_MS, maxWaiting: e.INTEGRATION_WRITE_QUEUE,
      dutyPercent: e.INTEGRATION_WRITE_DUTY_PERCENT,
    }),
    shedding: Object.freeze({
      maxEventLoopDelayMs: e.SHED_EVENT_LOOP_DELAY_MS,
      maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * e.SHED_HEAP_USED_PERCENT / 100),
      maxPoolWaiting: e.SHED_DB_WAITING,
    }),
    redisUrl: e.REDIS_URL,
    siteCurrency: e.SITE_CURRENCY,
    siteTimeZone: e.SITE_TIME_ZONE,
    integrationJwt: Object.freeze({
      key: Object.freeze(key),
      algorithm,
      issuer: e.INTEGRATION_JWT_ISSUER,
      audience: e.INTEGRATION_JWT_AUDIENCE,
    }),
    searchRefreshIntervalMs: e.SEARCH_REFRESH_INTERVAL_MS,
    lookupCacheMaxMb: e.LOOKUP_CACHE_MAX_MB,
    searchCacheMaxMb: e.SEARCH_CACHE_MAX_MB,
    heapGrowingPercent: e.HEAP_GROWING_PERCENT,
    smtpUrl: e.SMTP_URL,
    erpUrl: e.ERP_URL,
    erp: Object.freeze({ url: e.ERP_URL, timeoutMs: e.ERP_TIMEOUT_MS, retryBaseMs: e.ERP_RETRY_BASE_MS, retryMaxMs: e.ERP_RETRY_MAX_MS }),
    mailFrom: e.MAIL_FROM,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    portalSession: Object.freeze({ idleMinutes: e.PORTAL_SESSION_IDLE_MINUTES, maxHours: e.PORTAL_SESSION_MAX_HOURS }),
    trustProxy: Array.isArray(trustProxy) ? Object.freeze(trustProxy) as string[] : trustProxy,
    worker: Object.freeze({ inProcess: e.WORKER_IN_PROCESS === 'true', concurrency: e.WORKER_CONCURRENCY, deadAfterMs: e.WORKER_DEAD_AFTER_MS }),
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
  });
}
