import { createRequire } from 'node:module';

/**
 * Closed-loop HTTP load with autocannon's programmatic API: `connections` keep-alive connections,
 * each sending its next request as soon as the previous answer arrived, for `durationS` seconds.
 * The request bodies are rotated per request (every connection walks the same list), so the
 * server sees many different key lists rather than one it could cache.
 *
 * autocannon ships no type declarations and the bench may not add packages, so the part of its API
 * used here is typed below and the module is loaded through `require`.
 */

interface AutocannonRequest { path: string; body: string }

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  method: 'POST';
  headers: Record<string, string>;
  requests: AutocannonRequest[];
  /** Seconds before a request counts as a timeout. */
  timeout: number;
}

/** One of autocannon's histograms (hdr-histogram-percentiles-obj): latencies in ms, requests per second sample. */
interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: Histogram;
  requests: Histogram & { sent: number };
  throughput: Histogram;
}

/** The running instance: it emits `start` once every connection is set up, and `response` (client, status code, bytes, latency in ms) for every answer. */
interface AutocannonInstance {
  on(event: 'start', listener: () => void): unknown;
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, latencyMs: number) => void): unknown;
}

type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadOptions {
  readonly baseUrl: string;
  readonly path: string;
  readonly bodies: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationS: number;
}

export interface LoadResult {
  /** Requests answered per second of the timed window (see `runLoad`). */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
  /** Requests sent in the timed window and answered. */
  readonly requests: number;
  /** Response bytes per second (autocannon's figure, of the whole run). */
  readonly bytesPerS: number;
  /** Seconds of the timed window. */
  readonly durationS: number;
  /** Every timed request's latency in ms, in the order answered. */
  readonly latencies: readonly number[];
  /** Responses other than 2xx, socket errors and timeouts: any of them makes the figures worthless. */
  readonly failures: { readonly non2xx: number; readonly errors: number; readonly timeouts: number; readonly statusCodes: Readonly<Record<string, number>> };
}

/** The value at `share` of the sorted latencies (nearest rank), to 0.01 ms. */
function percentile(sorted: Float64Array, share: number): number {
  const value = sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)] ?? NaN;
  return Math.round(value * 100) / 100;
}

/** Requests/s, percentiles, mean and maximum of these latencies answered in `durationS` seconds. */
function figures(latencies: readonly number[], durationS: number): Pick<LoadResult, 'rps' | 'p50Ms' | 'p99Ms' | 'meanMs' | 'maxMs' | 'requests'> {
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: durationS > 0 ? sorted.length / durationS : 0,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    meanMs: Math.round((sorted.reduce((total, ms) => total + ms, 0) / sorted.length) * 100) / 100,
    maxMs: sorted[sorted.length - 1] ?? NaN,
    requests: sorted.length,
  };
}

/**
 * Runs the load and times it from autocannon's `start` event to its end. Before that event each
 * connection builds its own copy of every request (for 3,000 bodies and 8 connections, ~0.6 s of
 * the load generator's CPU), while the first connection's first request is already on its clock:
 * a request sent before `start` measures the load generator, not the server, and is not counted.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let startedAt: number | undefined;
    const latencies: number[] = [];
    const instance = autocannon({
      url: options.baseUrl,
      connections: options.connections,
      duration: options.durationS,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      requests: options.bodies.map((body) => ({ path: options.path, body })),
      timeout: 30,
    }, (error, result) => {
      if (error) {
        reject(error);
        return;
      }
      const durationS = startedAt === undefined ? 0 : (performance.now() - startedAt) / 1000;
      const statusCodes: Record<string, number> = {};
      for (const [code, stat] of Object.entries(result.statusCodeStats)) statusCodes[code] = stat.count;
      resolve({
        ...figures(latencies, durationS),
        bytesPerS: result.throughput.average,
        durationS,
        latencies,
        failures: { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, statusCodes },
      });
    });
    instance.on('start', () => {
      startedAt = performance.now();
    });
    instance.on('response', (_client, _status, _bytes, latencyMs) => {
      if (startedAt !== undefined && performance.now() - latencyMs >= startedAt) latencies.push(latencyMs);
    });
  });
}

/**
 * Runs of one path taken in slices, as one: requests and seconds summed (requests/s is their
 * quotient), percentiles, mean and maximum of every timed latency, failures summed.
 */
export function combineLoads(parts: readonly LoadResult[]): LoadResult {
  const sum = (of: (part: LoadResult) => number) => parts.reduce((total, part) => total + of(part), 0);
  const durationS = sum((part) => part.durationS);
  const latencies = parts.flatMap((part) => part.latencies);
  const statusCodes: Record<string, number> = {};
  for (const part of parts) for (const [code, count] of Object.entries(part.failures.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    ...figures(latencies, durationS),
    bytesPerS: durationS > 0 ? sum((part) => part.bytesPerS * part.durationS) / durationS : 0,
    durationS,
    latencies,
    failures: {
      non2xx: sum((part) => part.failures.non2xx),
      errors: sum((part) => part.failures.errors),
      timeouts: sum((part) => part.failures.timeouts),
      statusCodes,
    },
  };
}

/** Throws unless every response of the run was a 2xx, with no socket error and no timeout. */
export function expectAllOk(result: LoadResult, label: string, logTail: () => string): void {
  const { non2xx, errors, timeouts, statusCodes } = result.failures;
  if (non2xx === 0 && errors === 0 && timeouts === 0 && result.requests > 0) return;
  throw new Error(
    `${label}: ${result.requests} responses, ${non2xx} not 2xx, ${errors} errors, ${timeouts} timeouts ` +
    `(status codes ${JSON.stringify(statusCodes)}); the figures would be meaningless.\nServer log:\n${logTail()}`,
  );
}
