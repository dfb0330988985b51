import { Type } from 'typebox';
import type { Pool } from '../../platform/db/pool.js';
import { defineHandler, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import { purgeOldActivity } from '../activity/index.js';
import { deleteStaleQuickOrderResults } from '../baskets/index.js';
import { deleteExpiredIdempotentAnswers } from '../orders/index.js';
import { deleteEndedSessions, deleteOldPasswordResets } from '../users/index.js';

/**
 * Hourly housekeeping: removes rows whose use has ended, so tables that every sign-in, reset,
 * order and quick order writes to do not grow for ever. Scheduled by the job queue's cron
 * (graphile-worker keeps one run per hour however many workers run); each statement is idempotent,
 * so a retried or overlapping run removes nothing it should keep.
 */
export const housekeeping = {
  name: 'housekeeping.purge',
  version: 1,
  // graphile-worker adds `_cron` (the tick) to a scheduled job's payload.
  payload: Type.Object({ v: Type.Literal(1) }),
  maxAttempts: 3,
} satisfies JobType;

/** Minute 17 of every hour (off the hour, when other schedules crowd). */
export const HOUSEKEEPING_SCHEDULE = '17 * * * *';

/** The cron item of the worker (graphile-worker's CronItem). */
export const housekeepingCron = { task: housekeeping.name, match: HOUSEKEEPING_SCHEDULE, identifier: housekeeping.name, payload: { v: 1 } };

/** How long a password reset row is kept after it was asked for (its link works for an hour). */
export const RESET_ROWS_KEPT_DAYS = 7;

export interface PurgePolicy {
  /** A portal session ends after this many idle minutes (PORTAL_SESSION_IDLE_MINUTES). */
  sessionIdleMinutes: number;
}

export interface Purged {
  sessions: number;
  passwordResets: number;
  orderRequests: number;
  quickOrderResults: number;
  activity: number;
}

/**
 * Removes what nothing will read again: portal sessions past their end or idle limit (a request with
 * one is refused already), password reset rows asked for over RESET_ROWS_KEPT_DAYS ago, order
 * Idempotency-Key answers older than their 24 hours, quick-order results past their RESULT_TTL_S, and
 * account activity older than ACTIVITY_KEPT_MONTHS (13 months).
 * Each statement sits in its table's module, beside the rule of the reader it mirrors.
 */
export async function purgeExpired(pool: Pool, policy: PurgePolicy): Promise<Purged> {
  return {
    sessions: await deleteEndedSessions(pool, policy.sessionIdleMinutes),
    passwordResets: await deleteOldPasswordResets(pool, RESET_ROWS_KEPT_DAYS),
    orderRequests: await deleteExpiredIdempotentAnswers(pool),
    quickOrderResults: await deleteStaleQuickOrderResults(pool),
    activity: await purgeOldActivity(pool),
  };
}

export function housekeepingHandler(deps: { pool: Pool } & PurgePolicy): JobHandler {
  return defineHandler(housekeeping, async (_payload, { logger }) => {
    const purged = await purgeExpired(deps.pool, deps);
    logger.info({ purged }, 'housekeeping: expired rows removed');
  });
}
