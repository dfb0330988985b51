/**
 * Dates and texts exactly as PostgreSQL stores them. JSON Schema's formats admit values PostgreSQL
 * refuses (year 0000, a UTC offset beyond ±15:59, a leap second with a fraction, NUL characters);
 * left to the database one such item would fail its whole batch with a retryable 503 on every retry,
 * so they are refused here, as a problem of that item only.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** RFC 3339 date-time with the separators and offsets both RFC 3339 and PostgreSQL read. */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):?(\d{2})?)$/;

function daysIn(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isStorableDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

export function isStorableDateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m || !isStorableDate(m[1] as string)) return false;
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (hour > 23 || minute > 59 || second > 60) return false;
  // A whole leap second is read as the next second's start; with a fraction PostgreSQL refuses it.
  if (second === 60 && m[5] && /[1-9]/.test(m[5])) return false;
  if (m[7] !== undefined && (Number(m[7]) > 15 || Number(m[8] ?? 0) > 59)) return false;
  return true;
}

/**
 * String.prototype.isWellFormed (ES2024, Node 20): false exactly when the string holds an unpaired
 * surrogate, what /\p{Cs}/u finds, natively: every string field of every batch item is checked, and
 * the regular expression was the largest single cost of validating a catalogue batch.
 */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** Why a string cannot be stored as PostgreSQL text, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000), which cannot be stored';
  if (!isWellFormed(text)) return 'must not contain an unpaired UTF-16 surrogate, which is not a character';
  return undefined;
}
