import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/**
 * A reading taken once a second until stopped, and its peak over a stretch of time. A pool opens
 * database connections as its load asks and closes idle ones, and a process's RSS rises and falls
 * with each garbage collection, so one reading at each end compares two moments of a count that
 * moves (connections 9 at the warm-up's end and 13 at the run's end in one run, with no leak); a
 * leak shows as a higher peak.
 */
export function sampleEverySecond(read: () => number | Promise<number>): { peak(fromMs: number, toMs?: number): number; stop(): Promise<void> } {
  const samples: Array<{ at: number; value: number }> = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      samples.push({ at: performance.now(), value: await read() });
      await sleep(1000);
    }
  })();
  return {
    peak(fromMs, toMs = Infinity) {
      return Math.max(...samples.filter((s) => s.at >= fromMs && s.at <= toMs).map((s) => s.value));
    },
    async stop() {
      stopping = true;
      await loop;
    },
  };
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

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export const round1 = (n: number): number => Math.round(n * 10) / 10;
