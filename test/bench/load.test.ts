import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { combineLoads, type LoadResult } from '../../bench/lib/load.js';

const part = (latencies: number[], durationS: number, bytesPerS: number, failures: Partial<LoadResult['failures']> = {}): LoadResult => ({
  rps: latencies.length / durationS,
  p50Ms: 0,
  p99Ms: 0,
  meanMs: 0,
  maxMs: 0,
  requests: latencies.length,
  bytesPerS,
  durationS,
  latencies,
  failures: { non2xx: 0, errors: 0, timeouts: 0, statusCodes: { 200: latencies.length }, ...failures },
});

describe('combineLoads (the lookup bench\'s slices of one path, as one run)', () => {
  it('gives requests over seconds, and percentiles, mean and maximum of every latency by nearest rank', () => {
    // 200 latencies 1..200 ms, shuffled across two slices.
    const latencies = Array.from({ length: 200 }, (_, i) => ((i * 37) % 200) + 1);
    const combined = combineLoads([part(latencies.slice(0, 150), 2, 1000), part(latencies.slice(150), 3, 2000)]);
    assert.equal(combined.requests, 200);
    assert.equal(combined.durationS, 5);
    assert.equal(combined.rps, 40);
    assert.equal(combined.p50Ms, 100);
    assert.equal(combined.p99Ms, 198);
    assert.equal(combined.meanMs, 100.5);
    assert.equal(combined.maxMs, 200);
    assert.equal(combined.bytesPerS, 1600);
  });

  it('sums every slice\'s failures, so one bad slice fails the whole run', () => {
    const ten = Array.from({ length: 10 }, () => 1);
    const combined = combineLoads([part(ten, 1, 0), part(ten, 1, 0, { non2xx: 2, timeouts: 1, statusCodes: { 200: 8, 503: 2 } })]);
    assert.deepEqual(combined.failures, { non2xx: 2, errors: 0, timeouts: 1, statusCodes: { 200: 18, 503: 2 } });
  });
});
