import os from 'node:os';
import type pg from 'pg';
import type { Logger } from 'pino';

/**
 * Locks of dead workers released within a bound. graphile-worker marks a job it runs with the
 * worker's id (`locked_by`) and, when the process running it dies (SIGKILL, OOM, power), leaves the
 * job locked for 4 hours before anyone may run it again. Each worker process therefore records its
 * worker ids in `worker_heartbeats` and refreshes them every `intervalMs`; every worker process also
 * sweeps: a job locked for longer than `deadAfterMs` by a worker id with no beat in the last
 * `deadAfterMs` (stale, removed, or never recorded) is released with graphile-worker's own
 * `force_unlock_workers` and runs again on the next free worker. Every time is the database's
 * now(), so the processes' clocks play no part.
 *
 * A job released this way may run a second time after a crash; that is what the jobs are written
 * for (the ERP hand-off sends the same Idempotency-Key, mail goes through sendOnce). A live worker
 * keeps its locks while its beats arrive: only a process that cannot write a beat for
 * `deadAfterMs` (stalled, or cut from the database that long) can see a job it runs started again
 * elsewhere.
 */

export const HEARTBEAT_INTERVAL_MS = 5_000;
export const DEAD_WORKER_AFTER_MS = 30_000;

/**
 * The beat interval for a dead-after bound (WORKER_DEAD_AFTER_MS): a sixth of it, at most 5 s, so a
 * live worker misses five beats in a row before it counts as dead.
 */
export function heartbeatIntervalFor(deadAfterMs: number): number {
  return Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(deadAfterMs / 6));
}

/** Records (or re-records, after a sweep removed them) these worker ids as alive now. */
export async function beat(db: Pick<pg.Pool, 'query'>, workerIds: readonly string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await db.query(
    `INSERT INTO worker_heartbeats (worker_id, host, pid)
     SELECT unnest($1::text[]), $2, $3
     ON CONFLICT (worker_id) DO UPDATE SET beat_at = now()`,
    [workerIds, os.hostname(), process.pid],
  );
}

/** A worker stopped cleanly: its jobs are finished or handed back, and its rows go. */
export async function forget(db: Pick<pg.Pool, 'query'>, workerIds: readonly string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await db.query('DELETE FROM worker_heartbeats WHERE worker_id = ANY($1::text[])', [workerIds]);
}

// Job queues are locked like jobs (named queues); both are freed by force_unlock_workers.
const RELEASE_DEAD_LOCKS = `
WITH bound AS (SELECT now() - make_interval(secs => $1::double precision / 1000) AS since),
held AS (
  SELECT locked_by AS worker_id FROM graphile_worker._private_jobs, bound
  WHERE locked_by IS NOT NULL AND locked_at < bound.since
  UNION
  SELECT locked_by FROM graphile_worker._private_job_queues, bound
  WHERE locked_by IS NOT NULL AND locked_at < bound.since
),
dead AS (
  SELECT array_agg(held.worker_id ORDER BY held.worker_id) AS ids FROM held, bound
  WHERE NOT EXISTS (SELECT 1 FROM worker_heartbeats h WHERE h.worker_id = held.worker_id AND h.beat_at >= bound.since)
)
-- NOTIFY as add_job does, so idle workers pick the released jobs up at once instead of at their next poll.
SELECT ids, graphile_worker.force_unlock_workers(ids)::text AS released,
       pg_notify('jobs:insert', json_build_object('count', cardinality(ids))::text) AS notified
FROM dead WHERE ids IS NOT NULL`;

/**
 * Releases the jobs held by workers that have not beaten for `deadAfterMs` and whose locks are at
 * least that old, and removes heartbeat rows that old. Safe to run from any number of processes at
 * once. Returns the worker ids whose jobs were released.
 */
export async function releaseDeadWorkers(db: Pick<pg.Pool, 'query'>, deadAfterMs: number): Promise<string[]> {
  const { rows } = await db.query<{ ids: string[] }>(RELEASE_DEAD_LOCKS, [deadAfterMs]);
  await db.query('DELETE FROM worker_heartbeats WHERE beat_at < now() - make_interval(secs => $1::double precision / 1000)', [deadAfterMs]);
  return rows[0]?.ids ?? [];
}

export interface Heartbeat {
  /** Worker ids of this process come and go with graphile-worker's `worker:create` / `worker:stop`. */
  add(workerId: string): void;
  remove(workerId: string): void;
  /** One beat and one sweep now (also run every interval). */
  tick(): Promise<void>;
  /** Stops beating and removes this process's rows; call once its workers have stopped. */
  stop(): Promise<void>;
}

export interface HeartbeatOptions {
  pool: pg.Pool;
  logger: Logger;
  intervalMs?: number;
  deadAfterMs?: number;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const deadAfterMs = options.deadAfterMs ?? DEAD_WORKER_AFTER_MS;
  const { pool, logger } = options;
  const ids = new Set<string>();
  /** Stopped workers: no longer beaten for, removed at stop() (or by a sweep once stale). */
  const gone = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function once(): Promise<void> {
    try {
      // Our own beat first: a sweep never finds this process's workers stale.
      await beat(pool, [...ids]);
      const released = await releaseDeadWorkers(pool, deadAfterMs);
      if (released.length > 0) logger.warn({ workerIds: released, deadAfterMs }, 'released the jobs of workers that stopped beating');
    } catch (error) {
      // The database gone for a moment: the next tick tries again.
      logger.warn({ err: error }, 'worker heartbeat failed');
    }
  }

  function tick(): Promise<void> {
    // Ticks never overlap: a slow database delays the next one instead of piling them up.
    running = running.then(once);
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => { void tick().then(schedule); }, intervalMs);
  }
  schedule();

  return {
    add(workerId) { ids.add(workerId); },
    remove(workerId) {
      ids.delete(workerId);
      gone.add(workerId);
    },
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      try {
        await forget(pool, [...ids, ...gone]);
      } catch (error) {
        logger.warn({ err: error }, 'could not remove the worker heartbeats; the next sweep removes them');
      }
    },
  };
}
