import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { createPool, isDatabaseUnavailable, type Pool, type Queryable } from './pool.js';

/**
 * Where the reads that tolerate a bounded staleness go (the public lookup, search, suggest, browse
 * and the portal's catalogue pages): streaming replicas when DATABASE_READ_URL names some, the
 * primary otherwise. A unit of work runs on ONE server, so what it reads together (the search
 * context and the answer keyed by it, the lookup's snapshot xmin and its rows) comes from one replay
 * point; a replica's failure reruns the whole unit on the primary, which is never behind a replica.
 */
export interface ReadPool {
  run<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  /** Queries waiting for a connection of a replica's pool: load shedding counts them with the primary's. */
  readonly waitingCount: number;
}

/** Every read on the primary: what the services use without replicas, and the pages that must read their own writes. */
export function primaryReads(pool: Pool): ReadPool {
  return { run: (work) => work(pool), waitingCount: 0 };
}

export interface ReplicaStatus {
  /** `replica1`, `replica2`…, in DATABASE_READ_URL's order: never the URL, which may hold a password. */
  readonly name: string;
  readonly usable: boolean;
  /** Replay lag in milliseconds as last measured (`measureLag`); null before the first answer. */
  readonly lagMs: number | null;
}

/** What the metrics are told (platform/http/metrics.ts): reads per target, each check's outcome. */
export interface ReadObserver {
  /** A unit of work answered by `target` (`primary` or a replica's name). */
  read(target: string): void;
  /** A replica failed a read, which was run again on the primary. */
  retried(replica: string): void;
  checked(status: ReplicaStatus): void;
}

export interface Replicas extends ReadPool {
  status(): ReplicaStatus[];
  /** One round of checks now (the loop runs one every interval by itself). */
  check(): Promise<void>;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  primary: Pool;
  urls: readonly string[];
  maxLagMs: number;
  checkIntervalMs: number;
  /** Connections in each replica's pool. */
  poolSize: number;
  observer?: ReadObserver;
  logger?: Logger;
}

/** `X/Y` (pg_lsn as text) as a number of bytes. */
export function lsnBytes(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi ?? '0'}`) << 32n) | BigInt(`0x${lo ?? '0'}`);
}

/** What a replica says of itself (`REPLICA_CHECK`). */
export interface ReplicaReport {
  inRecovery: boolean;
  /** WAL replayed, in bytes. */
  replayed: bigint | null;
  /** The replica's own lag: 0 when all WAL received is replayed, else the age of the last transaction replayed. */
  ownLagMs: number;
}

/** A point the primary's flushed WAL had reached, and when (performance.now()). */
export interface PrimarySample {
  readonly lsn: bigint;
  readonly at: number;
}

/**
 * A replica's lag, in milliseconds, and whether it is known to be within that. Two measures, the
 * larger counts:
 *  - its own (`ownLagMs`): nothing received waits to be replayed → 0; otherwise the age of the last
 *    transaction it replayed (an upper bound: after a quiet spell it is the spell's length);
 *  - against the primary: the newest sample of the primary's flushed WAL that the replica has
 *    replayed says it holds everything the primary had at that moment; caught up with the latest
 *    sample → 0. A replica cut off from its primary, or restarted and not yet streaming, receives
 *    nothing and so reports no lag of its own: only this measure sees it fall behind.
 * Without any sample (the primary has not answered yet) only its own counts. With samples but none
 * it has reached, it is behind by more than the samples cover: `bounded` false, never usable.
 */
export function measureLag(report: ReplicaReport, samples: readonly PrimarySample[], now: number): { lagMs: number; bounded: boolean } {
  const own = Math.max(0, report.ownLagMs);
  const latest = samples[samples.length - 1];
  if (latest === undefined || report.replayed === null) return { lagMs: own, bounded: latest === undefined };
  if (report.replayed >= latest.lsn) return { lagMs: own, bounded: true };
  for (let i = samples.length - 2; i >= 0; i -= 1) {
    const sample = samples[i] as PrimarySample;
    // The next sample is the first it has not reached: it has everything up to this one, nothing after the next.
    if (report.replayed >= sample.lsn) return { lagMs: Math.max(own, now - (samples[i + 1] as PrimarySample).at), bounded: true };
  }
  return { lagMs: Math.max(own, now - (samples[0] as PrimarySample).at), bounded: false };
}

const REPLICA_CHECK = `
  SELECT pg_is_in_recovery() AS in_recovery,
         pg_last_wal_replay_lsn()::text AS replayed,
         CASE WHEN pg_last_wal_receive_lsn() IS NULL OR pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0
              ELSE coalesce(1000 * extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0)
         END::float8 AS own_lag_ms`;

interface Replica {
  readonly name: string;
  readonly pool: Pool;
  /** The pool, every error it raises that says the server failed remembered as this replica's. */
  readonly q: Queryable;
  usable: boolean;
  lagMs: number | null;
  checking: boolean;
}

/**
 * A pool per replica, a check of each every `checkIntervalMs` (`measureLag`), and reads spread in
 * turn over the usable ones; with none usable, the primary. A replica is usable once it answers,
 * is in recovery (a promoted replica no longer follows the primary's writes) and lags by at most
 * `maxLagMs`; a check that fails or takes longer than the interval (at least a second), or a read
 * that fails because the replica or its connection did, makes it unusable until a check finds it
 * well again. Such a read is run again on the primary: the client never sees a replica's failure.
 */
export function openReplicas(options: ReplicaOptions): Replicas {
  const { primary, maxLagMs, checkIntervalMs, logger } = options;
  const observer = options.observer;
  /** Errors that came from a replica's server, and which one. */
  const failedOn = new WeakMap<object, Replica>();
  const replicas: Replica[] = options.urls.map((url, i) => {
    const name = `replica${i + 1}`;
    // A replica that does not answer must not hold a read for long: the read goes to the primary.
    const pool = createPool({ url, max: options.poolSize, applicationName: 'portway-reads', connectionTimeoutMs: 2000 });
    const replica: Replica = {
      name, pool, usable: false, lagMs: null, checking: false,
      q: {
        query: ((...args: Parameters<Pool['query']>) => (pool.query as (...a: unknown[]) => Promise<unknown>)(...args).catch((error: unknown) => {
          if (typeof error === 'object' && error !== null && isDatabaseUnavailable(error)) failedOn.set(error, replica);
          throw error;
        })) as Queryable['query'],
      },
    };
    return replica;
  });

  const setUsable = (replica: Replica, usable: boolean, why: string | undefined) => {
    if (replica.usable !== usable) {
      if (usable) logger?.info({ replica: replica.name, lagMs: replica.lagMs }, 'read replica usable: it takes reads');
      else logger?.warn({ replica: replica.name, lagMs: replica.lagMs, reason: why }, 'read replica skipped: its reads go elsewhere until it recovers');
    }
    replica.usable = usable;
    observer?.checked({ name: replica.name, usable, lagMs: replica.lagMs });
  };

  /** The primary's flushed WAL over the last maxLagMs and a few intervals, oldest first. */
  const samples: PrimarySample[] = [];
  const keepMs = maxLagMs + 4 * checkIntervalMs;
  async function samplePrimary(): Promise<void> {
    try {
      const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn');
      const at = performance.now();
      samples.push({ lsn: lsnBytes(rows[0]?.lsn ?? '0/0'), at });
      while (samples.length > 2 && (samples[1] as PrimarySample).at < at - keepMs) samples.shift();
    } catch {
      // The primary not answering changes nothing here: replicas that reached its last sample stay usable.
    }
  }

  const checkTimeoutMs = Math.max(1000, checkIntervalMs);
  async function checkReplica(replica: Replica): Promise<void> {
    if (replica.checking) return;
    replica.checking = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = replica.pool.query<{ in_recovery: boolean; replayed: string | null; own_lag_ms: number }>(REPLICA_CHECK);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${checkTimeoutMs} ms`)), checkTimeoutMs);
      });
      const row = (await Promise.race([answer, timeout])).rows[0];
      if (row === undefined) throw new Error('no row');
      if (!row.in_recovery) {
        setUsable(replica, false, 'not in recovery: not a replica (promoted?)');
        return;
      }
      const report = { inRecovery: true, replayed: row.replayed === null ? null : lsnBytes(row.replayed), ownLagMs: row.own_lag_ms };
      const { lagMs, bounded } = measureLag(report, samples, performance.now());
      replica.lagMs = Math.round(lagMs);
      setUsable(replica, bounded && lagMs <= maxLagMs, bounded ? `lag ${Math.round(lagMs)} ms above READ_MAX_LAG_MS` : 'behind every recent point of the primary');
    } catch (error) {
      setUsable(replica, false, (error as Error).message);
    } finally {
      clearTimeout(timer);
      replica.checking = false;
    }
  }

  async function check(): Promise<void> {
    await samplePrimary();
    await Promise.all(replicas.map(checkReplica));
  }

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    timer = setTimeout(() => {
      void check().finally(() => { if (!closed) loop(); });
    }, checkIntervalMs);
    timer.unref();
  };
  void check().finally(() => { if (!closed) loop(); });

  let turn = 0;
  const pick = (): Replica | undefined => {
    for (let i = 0; i < replicas.length; i += 1) {
      const replica = replicas[(turn + i) % replicas.length] as Replica;
      if (replica.usable) {
        turn = (turn + i + 1) % replicas.length;
        return replica;
      }
    }
    return undefined;
  };

  return {
    async run(work) {
      const replica = pick();
      if (replica !== undefined) {
        try {
          const result = await work(replica.q);
          observer?.read(replica.name);
          return result;
        } catch (error) {
          // Another unit's failure can reach this one through a shared computation (search.cache.ts):
          // the replica marked is the one that failed.
          const failed = typeof error === 'object' && error !== null ? failedOn.get(error) : undefined;
          if (failed === undefined) throw error;
          setUsable(failed, false, (error as Error).message);
          observer?.retried(failed.name);
        }
      }
      const result = await work(primary);
      observer?.read('primary');
      return result;
    },
    get waitingCount() {
      let waiting = 0;
      for (const r of replicas) waiting += r.pool.waitingCount;
      return waiting;
    },
    status: () => replicas.map((r) => ({ name: r.name, usable: r.usable, lagMs: r.lagMs })),
    check,
    async close() {
      closed = true;
      clearTimeout(timer);
      await Promise.all(replicas.map((r) => r.pool.end()));
    },
  };
}

/** Runs `work` on `deps.reads` when the services were given replicas, else on the primary pool. */
export function runRead<T>(deps: { readonly pool: Queryable; readonly reads?: ReadPool | undefined }, work: (q: Queryable) => Promise<T>): Promise<T> {
  return deps.reads === undefined ? work(deps.pool) : deps.reads.run(work);
}
