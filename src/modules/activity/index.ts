/**
 * The activity module's front door: who did what in an account, recorded by the modules that do it
 * (users, team, orders) in their own transactions, listed for the account's Administrators, purged
 * by housekeeping.
 */
export {
  ACTIVITY_KEPT_MONTHS, ACTIVITY_KINDS, listActivity, purgeOldActivity, recordActivity,
  type ActivityDetails, type ActivityEntry, type ActivityKind, type RecordedActivity,
} from './activity.service.js';
