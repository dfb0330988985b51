import { EventEmitter } from 'node:events';
import { Logger as GraphileLogger, parseCronItems, run, runMigrations, type CronItem, type LogLevel, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger } from 'pino';
import { Value } from 'typebox/value';
import { guardConnections } from '../db/pool.js';
import { startHeartbeat } from './heartbeat.js';
import type { JobHandler, JobType } from './job.js';

/**
 * The job queue: graphile-worker on the same PostgreSQL. Jobs are claimed with SKIP LOCKED and woken
 * by LISTEN/NOTIFY, so any number of service or `portway worker` processes can run against one
 * database and each job runs once at a time; a failed job is retried with exponential back-off.
 */

export function graphileLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level: LogLevel, message: string, meta?: unknown) => {
    const fields = { ...scope, ...(meta && typeof meta === 'object' ? meta : {}) };
    // graphile-worker reports a connection lost under it (a database restart, a shutdown) as an
    // error, though its listener handles it and the next use reconnects: an outage, a warning.
    if (level === 'error' && /^PostgreSQL (active|idle) client generated error/.test(message)) logger.warn(fields, message);
    else if (level === 'error') logger.error(fields, message);
    else if (level === 'warning') logger.warn(fields, message);
    else if (level === 'info') logger.info(fields, message);
    else logger.debug(fields, message);
  });
}

/** Installs or upgrades the queue's own schema (`graphile_worker`); run with the app migrations. */
export async function migrateQueue(databaseUrl: string, logger: Logger): Promise<void> {
  // A pool of our own, ended before returning: graphile-worker's own left an idle connection whose
  // listener it had removed, and the database stopping then (a signal during a start) was an
  // uncaught error.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  guardConnections(pool, (error) => logger.debug({ err: error }, 'queue migration connection lost'));
  try {
    await runMigrations({ pgPool: pool, logger: graphileLogger(logger) });
  } finally {
    await pool.end();
  }
}

/**
 * Refuses to start when a job type has no handler (its jobs would sit in the queue forever) or
 * when two handlers claim one name.
 */
export function buildTaskList(types: readonly JobType[], handlers: readonly JobHandler[], logger: Logger): TaskList {
  const byName = new Map<string, JobHandler>();
  for (const handler of handlers) {
    if (byName.has(handler.type.name)) throw new Error(`Two handlers for job ${handler.type.name}`);
    byName.set(handler.type.name, handler);
  }
  const missing = types.filter((t) => !byName.has(t.name)).map((t) => t.name);
  if (missing.length > 0) throw new Error(`No handler for job type(s): ${missing.join(', ')}`);
  const tasks: TaskList = {};
  for (const handler of byName.values()) {
    const { type } = handler;
    tasks[type.name] = async (payload, helpers) => {
      const jobLogger = logger.child({ job: type.name, jobId: helpers.job.id, attempt: helpers.job.attempts });
      const versioned = payload as { v?: unknown };
      if (versioned?.v !== type.version || !Value.Check(type.payload, payload)) {
        // Retrying cannot fix a payload this release does not understand; keep it visible, not retried.
        jobLogger.error({ payload }, 'job payload does not match its type; dropped');
        return;
      }
      await handler.handle(payload as never, { jobId: helpers.job.id, attempt: helpers.job.attempts, logger: jobLogger });
    };
  }
  return tasks;
}

export interface Worker {
  stop(): Promise<void>;
}

export interface WorkerOptions {
  databaseUrl: string;
  types: readonly JobType[];
  handlers: readonly JobHandler[];
  logger: Logger;
  concurrency: number;
  /** How often to poll when no NOTIFY arrives (ms); NOTIFY normally wakes the worker at once. */
  pollIntervalMs?: number;
  /**
   * Scheduled jobs: graphile-worker's cron, given in code (never read from a crontab file). Each
   * tick is one job however many workers run; a tick missed while no worker ran is not made up.
   */
  cronItems?: readonly CronItem[];
  /**
   * How often this process records its workers as alive and sweeps for dead ones, and after how long
   * without a beat a worker counts as dead and its jobs are released (platform/jobs/heartbeat.ts).
   * Defaults: 5 s and 30 s.
   */
  heartbeatIntervalMs?: number;
  deadWorkerAfterMs?: number;
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const taskList = buildTaskList(options.types, options.handlers, options.logger);
  const unknown = (options.cronItems ?? []).filter((item) => taskList[item.task] === undefined).map((item) => item.task);
  if (unknown.length > 0) throw new Error(`Scheduled job(s) without a handler: ${unknown.join(', ')}`);
  const cronItems = parseCronItems([...(options.cronItems ?? [])]);
  const logger = options.logger.child({ component: 'worker' });
  // The worker's own pool, owned here so that stop() returns only once every one of its
  // connections is closed: the database (possibly the embedded one) is stopped right after.
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.concurrency + 2 });
  // A connection dropped by the server (restart, failover), idle or borrowed by a job, is replaced on
  // next use; it must not surface as an uncaught error that takes the process down.
  guardConnections(pool, (error) => logger.warn({ err: error }, 'worker connection lost'));
  const heartbeat = startHeartbeat({
    pool,
    logger,
    intervalMs: options.heartbeatIntervalMs,
    deadAfterMs: options.deadWorkerAfterMs,
  });
  // graphile-worker names each of its workers (worker-<random>) as it creates them, inside run().
  const events: WorkerEvents = new EventEmitter();
  events.on('worker:create', ({ worker }) => heartbeat.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => heartbeat.remove(worker.workerId));
  let runner: Runner;
  try {
    runner = await run({
      pgPool: pool,
      concurrency: options.concurrency,
      pollInterval: options.pollIntervalMs ?? 2000,
      noHandleSignals: true,
      logger: graphileLogger(logger),
      events,
    }, taskList, cronItems); // parsed items: nothing reads a crontab file from the working directory
  } catch (error) {
    await heartbeat.stop();
    await pool.end();
    throw error;
  }
  // Beat at once, and free what a process that died before this start still holds.
  await heartbeat.tick();
  options.logger.info({ concurrency: options.concurrency, jobs: Object.keys(taskList) }, 'job worker started');
  return {
    async stop() {
      // Lets running jobs finish; jobs not yet started stay queued for the next worker. The
      // heartbeat goes on meanwhile, so a long job is not taken for a dead one's.
      await runner.stop();
      await heartbeat.stop();
      await pool.end();
    },
  };
}
