import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../src/platform/db/embedded.js';
import { createCluster, type TestCluster } from '../helpers/cluster.js';
import { makeTmpDir, waitFor } from '../helpers/processes.js';
import { removeWhenDone, root, serviceEnv, spawnService, type Spawned } from '../helpers/service.js';

/**
 * What the load and concurrency trials share: a PostgreSQL cluster of their own with one real
 * `portway serve` process on it, integration tokens minted by the CLI, an open-loop request
 * generator on loopback, and a few readings of the process and the database.
 */

const run = promisify(execFile);

export interface TrialService {
  readonly cluster: TestCluster;
  readonly service: Spawned;
  readonly base: string;
  readonly port: number;
  readonly pid: number;
  /** The integration token (scope integration:write) and an admin one. */
  readonly tokens: { integration: string; admin: string };
  /** Runs `portway <args>` against the same database and key; its stdout, trimmed. */
  cli(...args: string[]): Promise<string>;
  /** SIGTERM, then the cluster removed. */
  stop(): Promise<void>;
}


/**
 * A fresh cluster and `portway serve` on it (DATABASE_URL = the cluster), with LOG_LEVEL warn: at
 * 200 requests a second, two info lines per request would be parsed by this very process and cost
 * the machine what the trial measures.
 */
export async function startTrialService(prefix: string, extra: Record<string, string> = {}): Promise<TrialService> {
  const cluster = await createCluster(`${prefix}-pg-`);
  try {
    const dataDir = await makeTmpDir(`${prefix}-data-`);
    removeWhenDone(dataDir);
    const port = await freePort();
    const env = serviceEnv(dataDir, { DATABASE_URL: cluster.url, PORT: String(port), LOG_LEVEL: 'warn', ...extra });
    const cli = async (...args: string[]) => (await run(process.execPath, ['bin/portway.js', ...args], { cwd: root, env })).stdout.trim();
    const service = spawnService(env);
    let exited = false;
    void service.exited.then(() => { exited = true; });
    const base = `http://127.0.0.1:${port}`;
    await waitFor('the service to answer /healthz', async () => {
      if (exited) throw new Error(`serve exited before answering:\n${service.stderr()}`);
      try {
        return (await fetch(`${base}/healthz`)).status === 200;
      } catch {
        return false;
      }
    }, 180_000);
    const tokens = { integration: await cli('token', 'mint'), admin: await cli('token', 'mint', '--scope', 'admin') };
    return {
      cluster, service, base, port, pid: service.child.pid as number, tokens, cli,
      async stop() {
        if (!exited) {
          service.child.kill('SIGTERM');
          await Promise.race([service.exited, sleep(30_000)]);
        }
        await cluster.remove();
      },
    };
  } catch (error) {
    await cluster.remove();
    throw error;
  }
}

/** VmRSS of a process, in MiB. */
export function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) / 1024;
}

/** Client connections to the cluster's database other than the asking one. */
export async function connectionCount(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  return Number(rows[0]?.n);
}

export interface TableCounts { upd: number; hotUpd: number }

export async function tableUpdates(db: pg.Client, table: string): Promise<TableCounts> {
  const { rows } = await db.query<{ upd: string; hot: string }>(
    'SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = $1', [table],
  );
  return { upd: Number(rows[0]?.upd ?? 0), hotUpd: Number(rows[0]?.hot ?? 0) };
}

/**
 * Backends publish their statistics when a transaction ends at most once a second, and within a
 * second or so of going idle; reads `read` until two readings 1.5 s apart agree (at most ~12 s).
 */
export async function settledReading<T>(read: () => Promise<T>): Promise<T> {
  let last = JSON.stringify(await read());
  for (let i = 0; i < 8; i += 1) {
    await sleep(1500);
    const value = await read();
    const text = JSON.stringify(value);
    if (text === last) return value;
    last = text;
  }
  return read();
}

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
  url: URL;
  headers: Record<string, string>;
  /** The body of request `i` and its path. */
  request(i: number): { path: string; body: string };
  rate: number;
  durationMs: number;
  /** Called with each answered request's status, body and latency. */
  check?(status: number, body: string): boolean;
}

/**
 * An open-loop generator: request i is due at start + i / rate and is sent then, whatever the
 * answers of earlier ones (a closed loop would slow down with the server and hide its queue). Its
 * latency counts from when it was due, so a late send is the server's (or this process's) delay,
 * not forgotten. Keep-alive connections, as many as the requests in flight need.
 */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });
  const total = Math.round(options.rate * options.durationMs / 1000);
  const interval = 1000 / options.rate;
  const result: OpenLoopResult = { scheduled: total, sent: 0, unsent: 0, late: 0, answered: 0, errors: 0, statuses: {}, latencies: [] };
  const count = (status: string) => { result.statuses[status] = (result.statuses[status] ?? 0) + 1; };
  let inFlight = 0;
  let allDone: () => void = () => undefined;
  const drained = new Promise<void>((resolve) => { allDone = resolve; });
  let dispatched = 0;

  const send = (i: number, due: number) => {
    const { path, body } = options.request(i);
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
    const req = http.request(new URL(path, options.url), {
      method: 'POST', agent, timeout: REQUEST_TIMEOUT_MS,
      headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const ok = status === 200 && (options.check ? options.check(status, Buffer.concat(chunks).toString('utf8')) : true);
        finish(String(status), ok);
      });
      res.on('error', () => finish('response-error', false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => finish(error.message === 'timeout' ? 'timeout' : 'request-error', false));
    req.end(body);
  };

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

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export const round1 = (n: number): number => Math.round(n * 10) / 10;
