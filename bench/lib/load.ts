import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Closed-loop HTTP load with autocannon's programmatic API: `connections` keep-alive connections,
 * each sending its next request as soon as the previous answer arrived, for `durationS` seconds.
 * The requests are rotated (every connection walks the same list), so the server sees many
 * different key lists or queries rather than one it could cache.
 *
 * autocannon ships no type declarations and the bench may not add packages, so the part of its API
 * used here is typed below and the module is loaded through `require`.
 */

interface AutocannonRequest { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> }

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  /** Each request's headers are laid over `headers`. */
  requests: AutocannonRequest[];
  /** Seconds before a request counts as a timeout. */
  timeout: number;
  /** Called with each connection's client as it is made. */
  setupClient?: (client: AutocannonClient) => void;
  /** Replaces `[<id>]` in each request with a new id every time it is sent. */
  idReplacement?: boolean;
}

/** The part of autocannon's per-connection client used here: its own list of requests, walked from its start. */
interface AutocannonClient { setRequests(requests: AutocannonRequest[]): void }

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

/** One request of the rotation: a GET of a path (with its query), or a POST of a JSON body. */
export interface LoadRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** A JSON body, serialised once beforehand so the load generator sends bytes, not objects. */
  readonly body?: string;
  /** Headers of this request only (another account's key), laid over the load's own. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** POSTs of each body to one path, in order. */
export function postRequests(path: string, bodies: readonly string[]): LoadRequest[] {
  return bodies.map((body) => ({ method: 'POST', path, body }));
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly requests: readonly LoadRequest[];
  /** Headers of every request. */
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationS: number;
  /**
   * Each connection starts at its own place in the rotation (connection i at i/connections of the
   * list) instead of all at its start. Without it the connections walk the list in step, so all
   * of them ask for the same request at once: eight users typing the same query at the same moment.
   */
  readonly staggered?: boolean;
  /**
   * Every `[<id>]` in a request (a header, such as `idempotency-key: bench-[<id>]`) is replaced by
   * an id of its own each time the request is sent (autocannon's `idReplacement`): a rotation of a
   * few bodies then places a new order every time instead of replaying the first answer.
   */
  readonly uniqueIds?: boolean;
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
export function runLoadHere(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let startedAt: number | undefined;
    const latencies: number[] = [];
    const requests = () => options.requests.map(({ method, path, body, headers }): AutocannonRequest => ({
      method,
      path,
      ...(body === undefined ? {} : { body }),
      // A GET sends no body, so it names no content type.
      ...(body === undefined && headers === undefined ? {} : { headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }),
    }));
    let clients = 0;
    const stagger = (client: AutocannonClient) => {
      const list = requests();
      const offset = Math.floor((clients * list.length) / options.connections) % list.length;
      clients += 1;
      client.setRequests([...list.slice(offset), ...list.slice(0, offset)]);
    };
    const instance = autocannon({
      url: options.baseUrl,
      connections: options.connections,
      duration: options.durationS,
      headers: { ...options.headers },
      requests: requests(),
      timeout: 30,
      ...(options.staggered === true ? { setupClient: stagger } : {}),
      ...(options.uniqueIds === true ? { idReplacement: true } : {}),
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

const GENERATOR = fileURLToPath(new URL('./load.child.ts', import.meta.url));

interface Generator {
  readonly child: ChildProcess;
  readonly pending: Map<number, { resolve: (result: LoadResult) => void; reject: (error: Error) => void }>;
  next: number;
}
let generator: Generator | undefined;

/** The load generator's process, started on first use and kept for the next runs. */
function generatorProcess(): Generator {
  if (generator !== undefined && generator.child.connected) return generator;
  const child = fork(GENERATOR, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const started: Generator = { child, pending: new Map(), next: 0 };
  child.on('message', (message: { id: number; result?: LoadResult; error?: string }) => {
    const waiting = started.pending.get(message.id);
    if (waiting === undefined) return;
    started.pending.delete(message.id);
    if (message.result !== undefined) waiting.resolve(message.result);
    else waiting.reject(new Error(message.error ?? 'the load generator failed'));
    if (started.pending.size === 0) child.channel?.unref();
  });
  child.on('exit', (code, signal) => {
    for (const waiting of started.pending.values()) waiting.reject(new Error(`the load generator exited (${signal ?? code})`));
    started.pending.clear();
    if (generator === started) generator = undefined;
  });
  // Idle, it keeps nothing alive: the bench ends when its work does, and the generator with it.
  child.unref();
  child.channel?.unref();
  generator = started;
  return started;
}

/** The load generator's pid once it was started (tests). */
export function loadGeneratorPid(): number | undefined {
  return generator?.child.pid;
}

/**
 * `runLoadHere` in the load generator's own process. The bench process holds the data set (at a
 * million products, a heap of ~2.7 GB) and the collector's pauses over it stalled autocannon in the
 * same event loop: they were counted as latency, the baseline's p99 doubling from 100,000 products
 * to 1,000,000. The generator's process holds the requests of the run it makes, nothing else.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const running = generatorProcess();
  const id = running.next;
  running.next += 1;
  return new Promise<LoadResult>((resolve, reject) => {
    running.pending.set(id, { resolve, reject });
    running.child.channel?.ref();
    running.child.send({ id, options }, (error) => {
      if (error === null || error === undefined) return;
      running.pending.delete(id);
      reject(error);
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

/** Throws unless every response of the run was a 2xx (or, given, `expectedStatus`), with no socket error and no timeout. */
export function expectAllOk(result: LoadResult, label: string, logTail: () => string, expectedStatus?: number): void {
  const { non2xx, errors, timeouts, statusCodes } = result.failures;
  // A form's POST answers a redirect (post, redirect, get): every answer must be that one status.
  const answered = expectedStatus === undefined ? non2xx === 0 : Object.keys(statusCodes).every((code) => Number(code) === expectedStatus);
  if (answered && errors === 0 && timeouts === 0 && result.requests > 0) return;
  throw new Error(
    `${label}: ${result.requests} responses, ${non2xx} not 2xx, ${errors} errors, ${timeouts} timeouts ` +
    `(status codes ${JSON.stringify(statusCodes)}); the figures would be meaningless.\nServer log:\n${logTail()}`,
  );
}

/**
 * The order of the paths in each slice of an alternating run: as given in even slices, reversed in
 * odd ones (A B, B A, A B …; A B C, C B A, A B C …), so every path runs as often early in a round as
 * late, and a drift of the machine's speed weighs on all of them alike.
 */
export function sliceOrder<K>(paths: readonly K[], slice: number): K[] {
  return slice % 2 === 0 ? [...paths] : [...paths].reverse();
}

/** Slices of a run of `durationS` seconds per path: about `sliceS` each, at least two (one in each order). */
export function sliceCount(durationS: number, sliceS: number): number {
  return Math.max(2, Math.round(durationS / sliceS));
}

export interface AlternatingOptions<K extends string, M extends string> {
  readonly paths: readonly K[];
  /** Seconds of load per path, taken in slices of about `sliceS`. */
  readonly durationS: number;
  readonly sliceS: number;
  /**
   * A pause before each slice, so that what a process does after its load stops (the collector's
   * concurrent sweeping, PostgreSQL's background writers) is not counted against the next path.
   */
  readonly pauseMs: number;
  /** One slice of one path's load, `seconds` long; it checks its own answers (`expectAllOk`). */
  run(path: K, seconds: number, slice: number): Promise<LoadResult>;
  /** Counters (CPU seconds of a process) read before and after each slice, their deltas summed per path; undefined when unknown. */
  readonly meters: Readonly<Record<M, (path: K) => number | undefined>>;
}

export interface AlternatingResult<M extends string> {
  /** The path's slices as one run (`combineLoads`). */
  readonly load: LoadResult;
  /** Each meter's sum over the path's slices, or undefined when any reading was unknown. */
  readonly meters: Readonly<Record<M, number | undefined>>;
}

/**
 * Several paths timed in alternating slices (`sliceOrder`), each path's slices summed into one run
 * of `durationS` seconds: the speed of a shared machine drifts, and every path then sees the same
 * drift (docs/decisions.md#bench-timing-in-slices).
 */
export async function runAlternating<K extends string, M extends string>(options: AlternatingOptions<K, M>): Promise<Record<K, AlternatingResult<M>>> {
  const slices = sliceCount(options.durationS, options.sliceS);
  const seconds = options.durationS / slices;
  const meterNames = Object.keys(options.meters) as M[];
  const sides = new Map(options.paths.map((path) => [path, {
    parts: [] as LoadResult[],
    meters: Object.fromEntries(meterNames.map((m) => [m, 0])) as Record<M, number | undefined>,
  }]));
  for (let slice = 0; slice < slices; slice += 1) {
    for (const path of sliceOrder(options.paths, slice)) {
      const side = sides.get(path) as { parts: LoadResult[]; meters: Record<M, number | undefined> };
      await sleep(options.pauseMs);
      const before = meterNames.map((m) => options.meters[m](path));
      side.parts.push(await options.run(path, seconds, slice));
      meterNames.forEach((m, i) => {
        const start = before[i];
        const end = options.meters[m](path);
        const sum = side.meters[m];
        side.meters[m] = start === undefined || end === undefined || sum === undefined ? undefined : sum + end - start;
      });
    }
  }
  return Object.fromEntries([...sides].map(([path, side]) => [path, { load: combineLoads(side.parts), meters: side.meters }])) as Record<K, AlternatingResult<M>>;
}
