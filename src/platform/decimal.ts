import { Decimal } from 'decimal.js';

/**
 * Exact decimals for money and quantities. Values are carried as canonical strings between the
 * HTTP layer and PostgreSQL `numeric`; arithmetic goes through decimal.js, never binary floats.
 */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

/** Exactly 4 places, as every amount of the public API (schema/amount.ts). Stored values have at most 4, so nothing is rounded. */
export function amountText(value: string): string {
  return new Dec(value).toFixed(4, Dec.ROUND_HALF_UP);
}

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
/** A double's shortest form reproduces the sender's text only up to 15 significant digits. */
const MAX_EXACT_NUMBER_DIGITS = 15;
export const MAX_INTEGER_DIGITS = 15;

/**
 * A decimal written out plainly (sign, digits, optional point and digits: what DECIMAL_TEXT admits,
 * and what String() gives for a number between 1e-7 and 1e21), in parts. decimal.js reads such a
 * text digit for digit (a number through its String(), no rounding), so its places, integer digits
 * and sign can be read from the text: the checks of an integration batch (five decimals an item,
 * 1,000 items) then build no Decimal. Any other form (an exponent) goes through decimal.js.
 */
const PLAIN_PARTS = /^(-?)(\d+)(?:\.(\d+))?$/;
interface PlainParts { negative: boolean; whole: string; fraction: string }

function plainParts(text: string): PlainParts | undefined {
  const m = PLAIN_PARTS.exec(text);
  return m === null ? undefined : { negative: m[1] === '-', whole: m[2] as string, fraction: m[3] ?? '' };
}

const LEADING_ZEROS = /^0+/;
const TRAILING_ZEROS = /0+$/;
const NON_ZERO = /[1-9]/;

/** `decimalProblem` of a plain decimal, from its text: the same checks in the same order. */
function plainDecimalProblem(parts: PlainParts, scale: number, minimum: number | undefined, isNumber: boolean): string | undefined {
  // precision(true): the digits from the first non-zero one on (integer zeros count).
  if (isNumber && `${parts.whole}${parts.fraction}`.replace(LEADING_ZEROS, '').length > MAX_EXACT_NUMBER_DIGITS) {
    return `has more than ${MAX_EXACT_NUMBER_DIGITS} significant digits, which a JSON number cannot carry exactly; send it as a string`;
  }
  if (parts.fraction.replace(TRAILING_ZEROS, '').length > scale) return `must have at most ${scale} decimal places`;
  if (parts.whole.replace(LEADING_ZEROS, '').length > MAX_INTEGER_DIGITS) {
    return `must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point`;
  }
  if (minimum === undefined) return undefined;
  const below = minimum === 0
    ? parts.negative && (NON_ZERO.test(parts.whole) || NON_ZERO.test(parts.fraction))
    : new Dec(`${parts.negative ? '-' : ''}${parts.whole}.${parts.fraction || '0'}`).lessThan(minimum);
  return below ? `must be at least ${minimum}` : undefined;
}

/** Why a value is not an acceptable decimal, or undefined when it is. */
export function decimalProblem(value: unknown, scale: number, minimum?: number): string | undefined {
  let d: Decimal;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    const parts = plainParts(String(value));
    if (parts !== undefined) return plainDecimalProblem(parts, scale, minimum, true);
    d = new Dec(value);
    if (d.precision(true) > MAX_EXACT_NUMBER_DIGITS) {
      return `has more than ${MAX_EXACT_NUMBER_DIGITS} significant digits, which a JSON number cannot carry exactly; send it as a string`;
    }
  } else if (typeof value === 'string') {
    if (!DECIMAL_TEXT.test(value)) return 'must be a decimal number such as "12.5" (digits, optional sign and point)';
    return plainDecimalProblem(plainParts(value) as PlainParts, scale, minimum, false);
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
  const parts = plainParts(typeof value === 'number' ? String(value) : value);
  if (parts === undefined) return new Dec(value).toFixed();
  // decimal.js's toFixed(): no leading or trailing zeros, no point without a fraction, zero never "-0".
  const whole = parts.whole.replace(LEADING_ZEROS, '') || '0';
  const fraction = parts.fraction.replace(TRAILING_ZEROS, '');
  const text = fraction === '' ? whole : `${whole}.${fraction}`;
  return parts.negative && text !== '0' ? `-${text}` : text;
}

/**
 * Exact decimals as integers of 10^-places units, for hot paths (a quote adds up and multiplies
 * hundreds of amounts): BigInt arithmetic on the digits, no decimal.js objects. Plain decimal text
 * ("-12.3400") is read digit by digit; any other form decimal.js accepts goes through it first.
 */
const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d*))?$/;

export interface Units { readonly units: bigint; readonly places: number }

const DIGITS_AROUND_POINT = /^-?\d+\.\d+$/;

/** The value of a decimal text as units of 10^-places, places being the digits it has after the point. */
export function unitsOf(text: string): Units {
  const m = PLAIN_DECIMAL.exec(text) ?? PLAIN_DECIMAL.exec(new Dec(text).toFixed());
  if (m === null) throw new Error(`not a decimal: ${text}`);
  const [, sign, whole, fraction = ''] = m;
  const units = BigInt(`${whole}${fraction}`);
  return { units: sign === '-' ? -units : units, places: fraction.length };
}

/** The value of a decimal text as units of 10^-places; exact, so the text may not have more places. */
export function toUnits(text: string, places: number): bigint {
  // The common case, an amount as PostgreSQL renders numeric(19,4) at exactly `places` places.
  const point = text.length - places - 1;
  if (places > 0 && point > 0 && text.charCodeAt(point) === 46 && DIGITS_AROUND_POINT.test(text)) {
    return BigInt(text.slice(0, point) + text.slice(point + 1));
  }
  const value = unitsOf(text);
  if (value.places > places) {
    const excess = 10n ** BigInt(value.places - places);
    if (value.units % excess !== 0n) throw new Error(`${text} has more than ${places} decimal places`);
    return value.units / excess;
  }
  return value.units * 10n ** BigInt(places - value.places);
}

/** `units` of 10^-from rounded half away from zero to units of 10^-to (to ≤ from). */
export function roundUnits(units: bigint, from: number, to: number): bigint {
  if (from <= to) return units * 10n ** BigInt(to - from);
  const divisor = 10n ** BigInt(from - to);
  const half = divisor / 2n;
  return units < 0n ? -((-units + half) / divisor) : (units + half) / divisor;
}

/** The text of `units` of 10^-places with exactly `places` digits after the point; zero is never "-0". */
export function unitsText(units: bigint, places: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return negative ? `-${text}` : text;
}
