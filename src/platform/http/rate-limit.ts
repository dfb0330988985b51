import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DEFAULT_RATE_LIMIT, type RateLimitPolicy } from '../auth/api-keys.js';
import { AppError } from './problem.js';

/**
 * Per-key request quotas for the public API, counted by rate-limiter-flexible in fixed windows
 * (a window starts at a key's first request and lasts `windowS`). With REDIS_URL the counters live
 * in Redis and every instance shares them; without it they are per process.
 *
 * Responses carry the RateLimit fields of draft-ietf-httpapi-ratelimit-headers (draft 11):
 *   RateLimit-Policy: "default";q=600;w=60
 *   RateLimit: "default";r=<remaining>;t=<seconds until the window resets>
 */
export { DEFAULT_RATE_LIMIT, type RateLimitPolicy };

/** The policy name in the header fields: one policy per key, so one name. */
export const POLICY_NAME = 'default';

export interface RateLimitDecision {
  allowed: boolean;
  policy: RateLimitPolicy;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while a window is open). */
  resetS: number;
  /** True when the shared store failed and the per-process fallback counted this request. */
  degraded: boolean;
}

export interface RateLimiter {
  /** Counts one request of `key` under `policy`. Never throws for a store failure (fails open to per-process counting). */
  consume(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision>;
  /**
   * How many times `key` was counted in its open window under `policy` (0: none) and the whole
   * seconds until that window ends, counting nothing. A store failure falls back as `consume` does.
   */
  peek(key: string, policy: RateLimitPolicy): Promise<{ count: number; resetS: number }>;
  /** Whether counters are shared through Redis (false: per process). */
  readonly shared: boolean;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  /** config.redisUrl: counters in Redis when set, in process otherwise. */
  redisUrl?: string | undefined;
  logger?: Logger | undefined;
  /** Namespace of the Redis keys (tests use their own). */
  keyPrefix?: string;
  /** How long start-up waits for Redis before going on with per-process counters. */
  connectTimeoutMs?: number;
  /** How long one Redis command may take before this request is counted in process instead. */
  commandTimeoutMs?: number;
}

const policyId = (p: RateLimitPolicy): string => `${p.limit}:${p.windowS}`;
/** Interval between two "Redis is unavailable" warnings, so an outage does not flood the log. */
const WARN_INTERVAL_MS = 30_000;

function decisionOf(res: RateLimiterRes, policy: RateLimitPolicy, allowed: boolean, degraded: boolean): RateLimitDecision {
  return {
    allowed,
    policy,
    remaining: Math.max(0, Math.min(policy.limit, res.remainingPoints)),
    resetS: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    degraded,
  };
}

/**
 * Builds the limiter once per process (every public scope must share it, or each would count on
 * its own). With a Redis URL it waits up to `connectTimeoutMs` for the connection; if Redis is not
 * there it starts anyway, counting in process, and switches to Redis once it answers.
 */
export async function createRateLimiter(options: RateLimiterOptions = {}): Promise<RateLimiter> {
  const logger = options.logger;
  const keyPrefix = options.keyPrefix ?? 'portway:ratelimit';
  const memory = new Map<string, RateLimiterMemory>();
  const memoryFor = (policy: RateLimitPolicy): RateLimiterMemory => {
    const id = policyId(policy);
    let limiter = memory.get(id);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: policy.limit, duration: policy.windowS, keyPrefix: `${keyPrefix}:${id}` });
      memory.set(id, limiter);
    }
    return limiter;
  };

  let redis: Redis | undefined;
  const stores = new Map<string, RateLimiterRedis>();
  let lastWarning = -Infinity;
  const warn = (error: unknown): void => {
    const now = Date.now();
    if (now - lastWarning < WARN_INTERVAL_MS) return;
    lastWarning = now;
    logger?.warn({ err: error }, 'rate limiting: Redis is unavailable; counting requests per process until it answers');
  };

  if (options.redisUrl) {
    redis = new Redis(options.redisUrl, {
      // A request must never queue behind a dead connection: with no offline queue a command fails
      // at once while disconnected, and the request is counted in process instead.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      lazyConnect: true,
    });
    // Without a listener an unreachable Redis would crash the process with an unhandled 'error'.
    redis.on('error', warn);
    redis.on('ready', () => {
      if (lastWarning > -Infinity) logger?.info('rate limiting: Redis answers again; counters are shared through it');
    });
    try {
      await redis.connect();
    } catch (error) {
      // ioredis keeps reconnecting in the background; until then requests are counted in process.
      warn(error);
    }
  }

  const storeFor = (client: Redis, policy: RateLimitPolicy): RateLimiterRedis => {
    const id = policyId(policy);
    let limiter = stores.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: client,
        points: policy.limit,
        duration: policy.windowS,
        keyPrefix: `${keyPrefix}:${id}`,
        rejectIfRedisNotReady: true,
      });
      stores.set(id, limiter);
    }
    return limiter;
  };

  async function count(limiter: RateLimiterAbstract, key: string, policy: RateLimitPolicy, degraded: boolean): Promise<RateLimitDecision> {
    try {
      return decisionOf(await limiter.consume(key, 1), policy, true, degraded);
    } catch (outcome) {
      // rate-limiter-flexible rejects with a RateLimiterRes when the quota is used up, and with an Error when the store fails.
      if (outcome instanceof RateLimiterRes) return decisionOf(outcome, policy, false, degraded);
      throw outcome;
    }
  }

  return {
    shared: redis !== undefined,
    async consume(key, policy) {
      if (redis) {
        try {
          return await count(storeFor(redis, policy), key, policy, false);
        } catch (error) {
          // Fail open to per-process counting: a Redis outage must not take the public API down
          // with it, and a per-process quota still bounds each instance.
          warn(error);
        }
      }
      return count(memoryFor(policy), key, policy, redis !== undefined);
    },
    async peek(key, policy) {
      const counted = (res: RateLimiterRes | null) => ({
        count: res?.consumedPoints ?? 0,
        resetS: res ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0,
      });
      if (redis) {
        try {
          return counted(await storeFor(redis, policy).get(key));
        } catch (error) {
          warn(error);
        }
      }
      return counted(await memoryFor(policy).get(key));
    },
    async close() {
      if (redis) redis.disconnect();
    },
  };
}

/** The two header fields for a decision (sent on every response after authentication). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'ratelimit-policy': `"${POLICY_NAME}";q=${decision.policy.limit};w=${decision.policy.windowS}`,
    ratelimit: `"${POLICY_NAME}";r=${decision.remaining};t=${decision.resetS}`,
  };
}

export function quotaExceeded(decision: RateLimitDecision): AppError {
  const { limit, windowS } = decision.policy;
  return new AppError(
    'quota-exceeded', 429, 'Too many requests',
    `This API key's quota of ${limit} requests per ${windowS} s is used up; retry in ${decision.resetS} s.`,
    { ...rateLimitHeaders(decision), 'retry-after': String(decision.resetS) },
  );
}

export interface RateLimitSubject { key: string; policy: RateLimitPolicy }

/**
 * Adds the limiter to a scope as an onRequest hook. Register it after the authentication hook:
 * `identify` names the caller, so a request refused by authentication never reaches it and uses
 * no quota. The headers set here stay on whatever response follows, errors included.
 */
export function installRateLimit(
  scope: FastifyInstance,
  limiter: RateLimiter,
  identify: (request: FastifyRequest) => RateLimitSubject,
): void {
  scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const { key, policy } = identify(request);
    const decision = await limiter.consume(key, policy);
    if (!decision.allowed) throw quotaExceeded(decision);
    reply.headers(rateLimitHeaders(decision));
  });
}
