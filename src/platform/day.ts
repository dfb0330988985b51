/**
 * "The day" of the business rules that work in dates, not instants (the tax rate effective on the
 * day, a ledger entry overdue once its due date has passed): the calendar date at an instant in the
 * site's time zone (SITE_TIME_ZONE, an IANA name). Instants compared with date-time bounds (freight
 * rate and price rule validity) need no day.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    // en-CA formats a date as YYYY-MM-DD; the parts are read by type, never by position.
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is an IANA time zone name this runtime knows ("UTC", "Australia/Sydney"). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The last minute asked about per zone and its date: every UTC offset in use is a whole number of
 * minutes, so the date cannot change within a UTC minute, and formatting a date costs more than
 * the rest of a tax decision.
 */
const lastDays = new Map<string, { minute: number; day: string }>();

/** The date (YYYY-MM-DD) at `at` in `timeZone`. */
export function siteDay(at: Date, timeZone: string): string {
  const minute = Math.floor(at.getTime() / 60_000);
  const last = lastDays.get(timeZone);
  if (last !== undefined && last.minute === minute) return last.day;
  const day = formatDay(at, timeZone);
  lastDays.set(timeZone, { minute, day });
  return day;
}

function formatDay(at: Date, timeZone: string): string {
  const parts = formatterOf(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}
