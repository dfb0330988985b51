import { fork } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * The load trials' request generator. `openLoopApart` runs it in a process of its own (the trial's
 * other clients, an ingest loop or a database monitor, must not delay its sends or its reading of
 * the answers: their pauses would be counted as the server's latency); `openLoop` is the generator
 * itself, which that process runs.
 */

export interface OpenLoopResult {
  scheduled: number;
  sent: number;
  /** Not sent: MAX_IN_FLIGHT requests were already waiting for their answers. */
  unsent: number;
  /** Sent more than LATE_MS after their time (the generator's own delay). */
  late: number;
  answered: number;
  /** Answers other than 200, and requests that failed or timed out. */
  errors: number;
  statuses: Record<string, number>;
  /** From each request's scheduled time to the end of its answer, in ms, sorted. */
  latencies: number[];
}

const MAX_IN_FLIGHT = 2_000;
const LATE_MS = 20;
const REQUEST_TIMEOUT_MS = 30_000;

export interface OpenLoopOptions {
  /** The service's base URL. */
  url: string;
  headers: Record<string, string>;
  /** Request i is `requests[i % requests.length]`, POSTed as JSON. */
  requests: readonly { path: string; body: string }[];
  rate: number;
  durationMs: number;
}

/**
 * An open-loop generator: request i is due at start + i / rate and is sent then, whatever the
 * answers of earlier ones (a closed loop would slow down with the server and hide its queue). Its
 * latency counts from when it was due, so a late send is the server's (or this process's) delay,
 * not forgotten. Keep-alive connections, as many as the requests in flight need. Before the
 * schedule, one request of each path, untimed and uncounted.
 */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  if (options.requests.length === 0) throw new Error('openLoop needs at least one request');
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });
  const base = new URL(options.url);
  const total = Math.round(options.rate * options.durationMs / 1000);
  const interval = 1000 / options.rate;
  const result: OpenLoopResult = { scheduled: total, sent: 0, unsent: 0, late: 0, answered: 0, errors: 0, statuses: {}, latencies: [] };
  const count = (status: string) => { result.statuses[status] = (result.statuses[status] ?? 0) + 1; };
  let inFlight = 0;
  let allDone: () => void = () => undefined;
  const drained = new Promise<void>((resolve) => { allDone = resolve; });
  let dispatched = 0;

  /** POSTs `body` to `path`; `finish` gets the status (or what failed) and whether it was a 200. */
  const post = (path: string, body: string, finish: (status: string, ok: boolean) => void) => {
    const req = http.request(new URL(path, base), {
      method: 'POST', agent, timeout: REQUEST_TIMEOUT_MS,
      headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      res.on('end', () => finish(String(res.statusCode ?? 0), res.statusCode === 200));
      res.on('error', () => finish('response-error', false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => finish(error.message === 'timeout' ? 'timeout' : 'request-error', false));
    req.end(body);
  };

  const send = (i: number, due: number) => {
    const { path, body } = options.requests[i % options.requests.length] as { path: string; body: string };
    inFlight += 1;
    result.sent += 1;
    const finish = (status: string, ok: boolean) => {
      inFlight -= 1;
      count(status);
      if (ok) {
        result.answered += 1;
        result.latencies.push(performance.now() - due);
      } else {
        result.errors += 1;
      }
      if (dispatched === total && inFlight === 0) allDone();
    };
    post(path, body, finish);
  };

  // One untimed request per path first: a fresh process compiles its request code and opens its
  // first connection in the first ~0.3 s (~200 ms of its own stall), which the first requests of the
  // schedule counted as the server's latency (the 20 s baseline's p99 was that stall).
  const seen = new Set<string>();
  for (const { path, body } of options.requests) {
    if (seen.has(path)) continue;
    seen.add(path);
    await new Promise<void>((resolve) => post(path, body, () => resolve()));
  }

  const start = performance.now() + 20;
  while (dispatched < total) {
    const due = start + dispatched * interval;
    const wait = due - performance.now();
    if (wait > 1) {
      await sleep(wait - 0.5);
      continue;
    }
    // Everything due by now goes out, the late ones included.
    while (dispatched < total && start + dispatched * interval <= performance.now() + 0.5) {
      const at = start + dispatched * interval;
      if (performance.now() - at > LATE_MS) result.late += 1;
      const i = dispatched;
      dispatched += 1;
      if (inFlight >= MAX_IN_FLIGHT) result.unsent += 1;
      else send(i, at);
    }
  }
  if (inFlight > 0) await drained;
  agent.destroy();
  result.latencies.sort((a, b) => a - b);
  return result;
}

const CHILD = fileURLToPath(new URL('./open-loop.child.ts', import.meta.url));

/** `openLoop` in a child process of its own (Node with tsx), its result sent back when it is done. */
export function openLoopApart(options: OpenLoopOptions): Promise<OpenLoopResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: OpenLoopResult | undefined;
    child.once('message', (message) => { result = message as OpenLoopResult; });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`the open-loop generator exited (${signal ?? code}) without a result`));
    });
    child.send(options);
  });
}
