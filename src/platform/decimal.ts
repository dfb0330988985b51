import { Decimal } from 'decimal.js';

/**
 * Exact decimals for money and quantities. Values are carried as canonical strings between the
 * HTTP layer and PostgreSQL `numeric`; arithmetic goes through decimal.js, never binary floats.
 */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
/** A double's shortest form reproduces the sender's text only up to 15 significant digits. */
const MAX_EXACT_NUMBER_DIGITS = 15;
export const MAX_INTEGER_DIGITS = 15;

/** Why a value is not an acceptable decimal, or undefined when it is. */
export function decimalProblem(value: unknown, scale: number, minimum?: number): string | undefined {
  let d: Decimal;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    d = new Dec(value);
    if (d.precision(true) > MAX_EXACT_NUMBER_DIGITS) {
      return `has more than ${MAX_EXACT_NUMBER_DIGITS} significant digits, which a JSON number cannot carry exactly; send it as a string`;
    }
  } else if (typeof value === 'string') {
    if (!DECIMAL_TEXT.test(value)) return 'must be a decimal number such as "12.5" (digits, optional sign and point)';
    d = new Dec(value);
  } else {
    return 'must be a decimal number';
  }
  if (d.decimalPlaces() > scale) return `must have at most ${scale} decimal places`;
  if (d.abs().trunc().toFixed().replace(/^0$/, '').length > MAX_INTEGER_DIGITS) {
    return `must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point`;
  }
  if (minimum !== undefined && d.lessThan(minimum)) return `must be at least ${minimum}`;
  return undefined;
}

/** Canonical text for a validated decimal (`"21.7525"`, `"52"`), or null. */
export function toDecimalText(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Dec(value).toFixed();
}
