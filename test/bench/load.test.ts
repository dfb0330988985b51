import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { combineLoads, loadGeneratorPid, postRequests, runAlternating, runLoad, sliceCount, sliceOrder, type LoadResult } from '../../bench/lib/load.js';

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

describe('alternating slices (several paths timed in turns)', () => {
  it('runs the paths in order, then reversed: A B, B A for two; A B C, C B A for three', () => {
    assert.deepEqual([0, 1, 2, 3].map((i) => sliceOrder(['a', 'b'], i).join('')), ['ab', 'ba', 'ab', 'ba']);
    assert.deepEqual([0, 1, 2].map((i) => sliceOrder(['a', 'b', 'c'], i).join('')), ['abc', 'cba', 'abc']);
  });

  it('takes slices of about the given length, at least two so each order comes once', () => {
    assert.equal(sliceCount(10, 2), 5);
    assert.equal(sliceCount(1, 2), 2);
    assert.equal(sliceCount(3, 2), 2);
  });

  it('gives each path its slices combined and its meters summed, unknown when any reading is', async () => {
    const calls: string[] = [];
    const clock = { a: 0, b: 0 };
    const result = await runAlternating({
      paths: ['a', 'b'] as const,
      durationS: 4,
      sliceS: 2,
      pauseMs: 0,
      run: async (path, seconds, slice) => {
        calls.push(`${path}${slice}:${seconds}`);
        clock[path] += path === 'a' ? 1 : 3;
        return part([1, 2, 3], seconds, 0);
      },
      meters: { cpu: (path) => clock[path], never: () => undefined },
    });
    assert.deepEqual(calls, ['a0:2', 'b0:2', 'b1:2', 'a1:2']);
    assert.equal(result.a.load.requests, 6);
    assert.equal(result.a.load.durationS, 4);
    assert.deepEqual(result.a.meters, { cpu: 2, never: undefined });
    assert.deepEqual(result.b.meters, { cpu: 6, never: undefined });
  });
});

describe('postRequests', () => {
  it('POSTs each body to the path, in order', () => {
    assert.deepEqual(postRequests('/p', ['{"a":1}', '{"b":2}']), [
      { method: 'POST', path: '/p', body: '{"a":1}' },
      { method: 'POST', path: '/p', body: '{"b":2}' },
    ]);
  });
});

describe('runLoad over real connections', () => {
  /** The paths each connection (by its socket) asked for, in order, during a short run. */
  async function pathsPerConnection(staggered: boolean): Promise<string[][]> {
    const sockets = new Map<object, string[]>();
    const server = http.createServer((req, res) => {
      const seen = sockets.get(req.socket) ?? [];
      sockets.set(req.socket, seen);
      seen.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const requests = Array.from({ length: 8 }, (_, i) => ({ method: 'GET' as const, path: `/r${i}` }));
      const result = await runLoad({ baseUrl: `http://127.0.0.1:${port}`, requests, headers: {}, connections: 4, durationS: 1, staggered });
      assert.ok(result.requests > 0 && result.failures.non2xx === 0);
      return [...sockets.values()];
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('runs the load in a process of its own (not the one holding the data set), the same one run after run', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const options = { baseUrl: `http://127.0.0.1:${port}`, requests: [{ method: 'GET' as const, path: '/' }], headers: {}, connections: 2, durationS: 1 };
      const first = await runLoad(options);
      const pid = loadGeneratorPid();
      assert.ok(first.requests > 0 && first.failures.non2xx === 0);
      assert.ok(pid !== undefined && pid !== process.pid, `the generator's pid ${pid} is not this process's ${process.pid}`);
      process.kill(pid, 0);
      const second = await runLoad(options);
      assert.ok(second.requests > 0);
      assert.equal(loadGeneratorPid(), pid);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('with uniqueIds, gives every request sent an id of its own in place of [<id>] (an Idempotency-Key per order)', async () => {
    const keys: string[] = [];
    const server = http.createServer((req, res) => {
      keys.push(String(req.headers['idempotency-key']));
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const requests = [{ method: 'POST' as const, path: '/orders', body: '{"a":1}' }, { method: 'POST' as const, path: '/orders', body: '{"b":2}' }];
      const result = await runLoad({
        baseUrl: `http://127.0.0.1:${port}`, requests, headers: { 'idempotency-key': 'bench-[<id>]' }, connections: 3, durationS: 1, uniqueIds: true,
      });
      assert.ok(result.requests > 10 && result.failures.non2xx === 0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    assert.ok(keys.length > 10);
    assert.equal(new Set(keys).size, keys.length, 'no key repeats');
    for (const key of keys) assert.match(key, /^bench-[\x21-\x7E]{8,}$/, 'visible ASCII, as an Idempotency-Key must be');
  });

  it('walks one rotation on every connection, each from its start unless staggered, then each from its own place', async () => {
    const inStep = await pathsPerConnection(false);
    assert.equal(inStep.length, 4);
    assert.deepEqual(inStep.map((paths) => paths[0]), ['/r0', '/r0', '/r0', '/r0']);
    const staggered = await pathsPerConnection(true);
    assert.equal(staggered.length, 4);
    assert.deepEqual(staggered.map((paths) => paths[0]).sort(), ['/r0', '/r2', '/r4', '/r6'], 'a quarter of the list apart');
    for (const paths of staggered) {
      const start = Number(paths[0]?.slice(2));
      assert.deepEqual(paths.slice(0, 8), Array.from({ length: 8 }, (_, i) => `/r${(start + i) % 8}`), 'then the rotation in order');
    }
  });
});
