/** The housekeeping module's front door: the hourly purge job, for the worker. */
export { housekeeping, housekeepingCron, housekeepingHandler, purgeExpired, type PurgePolicy, type Purged } from './housekeeping.job.js';
