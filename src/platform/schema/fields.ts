import { Type, type TSchema, type TUnsafe, type TOptional } from 'typebox';

/**
 * Field builders for the integration items. Optional fields accept `null` as "no value" (ERPs
 * commonly send nulls), and the JSON Schema `type` array keeps validation errors to one clear
 * message per field instead of one per union branch.
 */

export const DECIMAL_KEYWORD = 'x-decimal';
/** Marks a string stored as text: NUL and unpaired surrogates are refused (formats.ts). */
export const TEXT_KEYWORD = 'x-text';
/** Marks a required string that must hold something other than white space. */
export const NOT_BLANK_KEYWORD = 'x-not-blank';
export const BLANK_MESSAGE = 'must not be blank (white space only)';

/** White space only (JavaScript's set, which includes U+00A0 and U+3000); "" is not blank but empty. */
export function isBlank(text: string): boolean {
  return text.length > 0 && text.trim() === '';
}
/**
 * Caps a whole number sent as a string of digits beyond what a JSON number carries exactly (a
 * `bigint` column): the value, a string of decimal digits, is compared exactly. Strings with more
 * digits than the cap are left to the schema's `pattern` or `maxLength`, so they get one message.
 */
export const INTEGER_TEXT_MAXIMUM_KEYWORD = 'x-integer-text-maximum';
export interface DecimalOptions { scale: number; minimum?: number }

type Opt<T extends TSchema> = TOptional<T>;

/**
 * A required text: natural keys, codes and the references between them, required names. White
 * space alone is refused like "": `"   "` would be stored as a key that looks empty and that no
 * one can type back, and as a reference it names nothing.
 */
export function requiredString(maxLength?: number): TUnsafe<string> {
  return Type.Unsafe<string>({
    type: 'string', minLength: 1, ...(maxLength ? { maxLength } : {}), [TEXT_KEYWORD]: true, [NOT_BLANK_KEYWORD]: true,
  });
}

export function optionalString(maxLength?: number): Opt<TUnsafe<string | null>> {
  return Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], ...(maxLength ? { maxLength } : {}), [TEXT_KEYWORD]: true }));
}

export function optionalBoolean(): Opt<TUnsafe<boolean | null>> {
  return Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'] }));
}

/** A decimal sent as a JSON number or a decimal string; at most `scale` places, checked exactly. */
export function decimalSchema(options: Partial<DecimalOptions> = {}, nullable = true): TUnsafe<number | string | null> {
  const decimal: DecimalOptions = { scale: options.scale ?? 4, ...(options.minimum !== undefined ? { minimum: options.minimum } : {}) };
  return Type.Unsafe<number | string | null>({
    type: nullable ? ['number', 'string', 'null'] : ['number', 'string'],
    [DECIMAL_KEYWORD]: decimal,
    description: `Decimal, at most ${decimal.scale} decimal places${decimal.minimum !== undefined ? `, ≥ ${decimal.minimum}` : ''}; a JSON number or a string such as "21.7525"`,
  });
}

export function optionalDecimal(options: Partial<DecimalOptions> = {}): Opt<TUnsafe<number | string | null>> {
  return Type.Optional(decimalSchema(options));
}

export function requiredDecimal(options: Partial<DecimalOptions> = {}): TUnsafe<number | string> {
  return decimalSchema(options, false) as TUnsafe<number | string>;
}

export function requiredEnum<const T extends readonly string[]>(values: T): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

export function optionalEnum<const T extends readonly string[]>(values: T): Opt<TUnsafe<T[number] | null>> {
  return Type.Optional(Type.Unsafe<T[number] | null>({ type: ['string', 'null'], enum: [...values, null] }));
}

/** PostgreSQL `integer`: quantities above it are refused at the door, not by a failed batch. */
export const MAX_INT4 = 2_147_483_647;

function bounds(minimum?: number, maximum?: number): Record<string, number> {
  return { ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) };
}

export function optionalInteger(minimum?: number, maximum?: number): Opt<TUnsafe<number | null>> {
  return Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], ...bounds(minimum, maximum) }));
}

export function requiredInteger(minimum?: number, maximum?: number): TUnsafe<number> {
  return Type.Unsafe<number>({ type: 'integer', ...bounds(minimum, maximum) });
}

/** An address someone signs in with or is mailed at: checked as an email, not just a string. */
export function requiredEmail(maxLength = 254): TUnsafe<string> {
  return Type.Unsafe<string>({ type: 'string', format: 'email', minLength: 1, maxLength, [TEXT_KEYWORD]: true });
}

export function optionalDate(): Opt<TUnsafe<string | null>> {
  return Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date' }));
}

export function requiredDate(): TUnsafe<string> {
  return Type.Unsafe<string>({ type: 'string', format: 'date' });
}

export function optionalDateTime(): Opt<TUnsafe<string | null>> {
  return Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }));
}
