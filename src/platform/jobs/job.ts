import type { Static, TSchema } from 'typebox';
import type { Logger } from 'pino';
import type { Queryable } from '../db/pool.js';

/**
 * A kind of background job: its name, the version of its payload, and how often it may be tried.
 * The payload schema is checked when the job runs, so a payload from an older release that no
 * handler understands fails loudly instead of doing the wrong thing.
 */
export interface JobType<TSchemaT extends TSchema = TSchema> {
  readonly name: string;
  readonly version: number;
  readonly payload: TSchemaT;
  /** Attempts before the queue gives up (retries back off exponentially). */
  readonly maxAttempts: number;
  /** A key that makes enqueuing the same work twice replace the pending job instead of adding one. */
  jobKey?(payload: Static<TSchemaT>): string;
}

export type JobPayload<T extends JobType> = Static<T['payload']>;

export interface JobContext {
  readonly jobId: string;
  /** 1 on the first try. */
  readonly attempt: number;
  readonly logger: Logger;
}

export interface JobHandler<T extends JobType = JobType> {
  readonly type: T;
  handle(payload: JobPayload<T>, context: JobContext): Promise<void>;
}

/** Ties a handler to its type with the payload typed; the registry stores them erased. */
export function defineHandler<T extends JobType>(type: T, handle: JobHandler<T>['handle']): JobHandler {
  return { type, handle } as unknown as JobHandler;
}

// A null run_at is graphile-worker's "now".
const ADD_JOBS = `
SELECT graphile_worker.add_job($1, job.payload, max_attempts := $2, job_key := job.job_key, run_at := $4::timestamptz)
FROM jsonb_to_recordset($3::jsonb) AS job(payload json, job_key text)`;

export interface EnqueueOptions {
  /** Not before this instant; default: at once. */
  runAt?: Date;
}

/**
 * Enqueues jobs in the caller's transaction (the transactional outbox): they exist exactly when
 * the write that caused them commits, and a worker can pick them up only after that.
 *
 * Enqueuing under the key of a job that is running right now (a handler scheduling its own next
 * run) adds a new job: graphile-worker takes the key and any further retries off the running one,
 * which is deleted by id when it completes, so it cannot take the new one with it.
 */
export async function enqueue<T extends JobType>(
  tx: Queryable,
  type: T,
  payloads: ReadonlyArray<Omit<JobPayload<T>, 'v'>>,
  options: EnqueueOptions = {},
): Promise<void> {
  if (payloads.length === 0) return;
  const jobs = payloads.map((p) => {
    const payload = { ...p, v: type.version } as JobPayload<T>;
    return { payload, job_key: type.jobKey ? type.jobKey(payload) : null };
  });
  await tx.query(ADD_JOBS, [type.name, type.maxAttempts, JSON.stringify(jobs), options.runAt ?? null]);
}
