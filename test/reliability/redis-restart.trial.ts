import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { freePort } from '../../src/platform/db/embedded.js';
import { createRateLimiter } from '../../src/platform/http/rate-limit.js';
import { capturingLogger, waitFor } from '../helpers/processes.js';
import { redisAnswers, startRedis } from '../helpers/redis.js';
import { reportFigures } from './figures.js';

/**
 * Redis going away and coming back under the rate limiter. A Redis server of the trial's own (a free
 * loopback port, no persistence) is killed and started again three times while requests are counted:
 * every request is still answered (counted per process, `degraded`, with a warning), none waits
 * behind the dead connection, and once Redis answers again the counters are shared through it again.
 * Needs `redis-server` (Debian's package; .ci/run installs it).
 */

const OUTAGES = 3;

let redis: ChildProcess | undefined;
after(() => { redis?.kill('SIGKILL'); });

describe('Redis restarts under the rate limiter', { timeout: 120_000 }, () => {
  it(`answers every request through ${OUTAGES} Redis outages and shares counters again after each`, async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    redis = startRedis(port);
    await waitFor('redis to answer', () => redisAnswers(url), 20_000);
    const { logger, lines } = capturingLogger();
    const limiter = await createRateLimiter({ redisUrl: url, logger, keyPrefix: `trial:${port}` });
    const policy = { limit: 1_000_000, windowS: 3600 };
    let answered = 0;
    let degraded = 0;
    let slowest = 0;
    const count = async () => {
      const started = Date.now();
      const decision = await limiter.consume('key-1', policy);
      slowest = Math.max(slowest, Date.now() - started);
      answered += 1;
      if (decision.degraded) degraded += 1;
      assert.equal(decision.allowed, true);
      return decision;
    };
    const backToRedis: number[] = [];
    try {
      assert.equal((await count()).degraded, false, 'counted in Redis');
      for (let outage = 0; outage < OUTAGES; outage++) {
        redis.kill('SIGKILL');
        await new Promise((r) => redis?.once('exit', r));
        await waitFor('a request counted per process', async () => (await count()).degraded, 20_000);
        for (let i = 0; i < 20; i++) await count();
        redis = startRedis(port);
        const back = Date.now();
        await waitFor('counters shared through Redis again', async () => !(await count()).degraded, 30_000);
        backToRedis.push(Date.now() - back);
      }
      const check = new Redis(url);
      try {
        const keys = await check.keys(`trial:${port}*`);
        assert.ok(keys.length > 0, 'the counter lives in Redis again');
      } finally {
        check.disconnect();
      }
    } finally {
      await limiter.close();
    }
    const warnings = lines.filter((l) => l.level === 40 && /Redis is unavailable/.test(l.msg));
    reportFigures(`redis: ${OUTAGES} kills under the rate limiter`, {
      'Redis kills (SIGKILL)': OUTAGES,
      'requests counted': answered,
      'counted per process while Redis was away': degraded,
      'requests refused or failed': 0,
      'slowest count (ms)': slowest,
      'back to Redis after its return, max (ms)': Math.max(...backToRedis),
      'warnings logged (at most one per 10 s)': warnings.length,
    });
    assert.ok(warnings.length >= 1, 'the fallback is logged as a warning');
    assert.ok(lines.some((l) => l.level === 30 && /Redis answers again/.test(l.msg)), 'the return is logged');
    assert.ok(degraded > 0);
  });
});
