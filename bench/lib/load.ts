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

type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void) => unknown;

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
  /** Mean of autocannon's per-second request counts. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
  readonly requests: number;
  /** Response bytes per second. */
  readonly bytesPerS: number;
  readonly durationS: number;
  /** Responses other than 2xx, socket errors and timeouts: any of them makes the figures worthless. */
  readonly failures: { readonly non2xx: number; readonly errors: number; readonly timeouts: number; readonly statusCodes: Readonly<Record<string, number>> };
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    autocannon({
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
      const statusCodes: Record<string, number> = {};
      for (const [code, stat] of Object.entries(result.statusCodeStats)) statusCodes[code] = stat.count;
      resolve({
        rps: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        meanMs: result.latency.mean,
        maxMs: result.latency.max,
        requests: result.requests.total,
        bytesPerS: result.throughput.average,
        durationS: result.duration,
        failures: { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, statusCodes },
      });
    });
  });
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
