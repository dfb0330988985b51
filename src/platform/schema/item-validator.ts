import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { decimalProblem } from '../decimal.js';
import {
  BLANK_MESSAGE, DECIMAL_KEYWORD, INTEGER_TEXT_MAXIMUM_KEYWORD, NOT_BLANK_KEYWORD, TEXT_KEYWORD, isBlank, type DecimalOptions,
} from './fields.js';
import { isStorableDate, isStorableDateTime, textProblem } from './formats.js';

export interface ItemError { path: string; message: string }

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Ajv's `unicode: false` takes a string's length in UTF-16 units rather than walking it for its code
 * points (as PostgreSQL counts a varchar's characters). Ajv marks the option deprecated and says so on
 * stderr at each construction, which the CLI's output must not carry: that one notice is left out.
 * Should a later Ajv drop the option, lengths are counted in code points again: slower, still exact.
 */
const ajvLogger = {
  log: (...args: unknown[]) => console.log(...args),
  warn: (...args: unknown[]) => { if (!String(args[0]).startsWith('DEPRECATED: option unicode.')) console.warn(...args); },
  error: (...args: unknown[]) => console.error(...args),
};

/**
 * `unitLengths`: lengths in UTF-16 units (see `unitAjv`); otherwise in code points, Ajv's default.
 * `checkTexts`: the text keyword checks each string (`textProblem`); otherwise it is only a
 * marker, for items whose texts are known storable already (`ItemValidator`).
 */
function createAjv(unitLengths: boolean, checkTexts: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false, useDefaults: false,
    ...(unitLengths ? { unicode: false, logger: ajvLogger } : {}),
  });
  addFormats(ajv);
  // Stricter than RFC 3339 where PostgreSQL is (formats.ts); the messages stay the format's own.
  ajv.addFormat('date', { type: 'string', validate: isStorableDate });
  ajv.addFormat('date-time', { type: 'string', validate: isStorableDateTime });
  if (!checkTexts) ajv.addKeyword({ keyword: TEXT_KEYWORD, schemaType: 'boolean' });
  else ajv.addKeyword({
    keyword: TEXT_KEYWORD,
    schemaType: 'boolean',
    errors: true,
    validate: function text(this: unknown, _enabled: boolean, data: unknown): boolean {
      if (typeof data !== 'string') return true;
      const problem = textProblem(data);
      if (!problem) return true;
      (text as unknown as { errors: Array<Partial<ErrorObject>> }).errors = [{ keyword: TEXT_KEYWORD, message: problem, params: {} }];
      return false;
    },
  });
  ajv.addKeyword({
    keyword: NOT_BLANK_KEYWORD,
    schemaType: 'boolean',
    errors: true,
    validate: function notBlank(this: unknown, _enabled: boolean, data: unknown): boolean {
      if (typeof data !== 'string' || !isBlank(data)) return true;
      (notBlank as unknown as { errors: Array<Partial<ErrorObject>> }).errors = [{ keyword: NOT_BLANK_KEYWORD, message: BLANK_MESSAGE, params: {} }];
      return false;
    },
  });
  ajv.addKeyword({
    keyword: INTEGER_TEXT_MAXIMUM_KEYWORD,
    schemaType: 'string',
    errors: true,
    validate: function integerTextMaximum(this: unknown, maximum: string, data: unknown): boolean {
      // Part of the schema rather than a check after it, so a key out of range is reported (and
      // keys the result #<index>) even when another field of the item is wrong too.
      if (typeof data !== 'string' || !/^[0-9]+$/.test(data) || data.length > maximum.length) return true;
      if (BigInt(data) <= BigInt(maximum)) return true;
      (integerTextMaximum as unknown as { errors: Array<Partial<ErrorObject>> }).errors = [
        { keyword: INTEGER_TEXT_MAXIMUM_KEYWORD, message: `must be at most ${maximum}`, params: {} },
      ];
      return false;
    },
  });
  ajv.addKeyword({
    keyword: DECIMAL_KEYWORD,
    schemaType: 'object',
    errors: true,
    validate: function decimal(this: unknown, options: DecimalOptions, data: unknown): boolean {
      // Other types are answered by the `type` keyword alone, with one message.
      if (typeof data !== 'number' && typeof data !== 'string') return true;
      const problem = decimalProblem(data, options.scale, options.minimum);
      if (!problem) return true;
      (decimal as unknown as { errors: Array<Partial<ErrorObject>> }).errors = [
        { keyword: DECIMAL_KEYWORD, message: problem, params: {} },
      ];
      return false;
    },
  });
  return ajv;
}

/**
 * Lengths in code points: for the schemas that ask a string for at least two characters (a string of
 * characters beyond the Basic Multilingual Plane has more UTF-16 units than characters, so a unit
 * count could let a too-short one through).
 */
const exactAjv = createAjv(false, true);
/**
 * Lengths in UTF-16 units, never fewer than a string's code points: a string within its maxLength
 * by units is within it by characters, and only a maxLength refusal needs counting again
 * (`compileItemValidator`). Counting every string's code points (Ajv's ucs2length) was a twelfth of
 * the service's CPU per catalogue batch.
 */
const unitAjv = createAjv(true, true);
/** The same two without the per-string text check (`ItemValidator`'s `textsProven`), made on first use. */
const uncheckedAjv = { exact: lazy(() => createAjv(false, false)), unit: lazy(() => createAjv(true, false)) };

function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

function typeName(t: string): string {
  return t === 'integer' ? 'a whole number' : t === 'null' ? 'null' : t === 'array' ? 'an array' : t === 'object' ? 'an object' : `a ${t}`;
}

function messageFor(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return 'is required';
    case 'type': {
      const types = (Array.isArray(p.type) ? p.type : String(p.type).split(',')) as string[];
      const shown = types.filter((t) => t !== 'null').map(typeName);
      return `must be ${shown.join(' or ')}`;
    }
    case 'maxLength': return `must be at most ${String(p.limit)} characters long`;
    case 'minLength': return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`;
    case 'enum': return `must be one of: ${(p.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'minimum': return `must be at least ${String(p.limit)}`;
    case 'maximum': return `must be at most ${String(p.limit)}`;
    case 'format': return p.format === 'date' ? 'must be a date (YYYY-MM-DD)'
      : p.format === 'date-time' ? 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)'
      : `must be a valid ${String(p.format)}`;
    case 'minItems': return `must have at least ${String(p.limit)} items`;
    case 'maxItems': return `must have at most ${String(p.limit)} items`;
    default: return e.message ?? 'is invalid';
  }
}

/**
 * One error per field: Ajv reports every failing keyword, so an enum sent as a number failed both
 * `type` ("must be a string") and `enum`. The enum's message names the allowed values and so says
 * both; a `type` error otherwise stands alone (the other keywords only repeat it); anything else
 * found at one path is joined into one message, in the order Ajv found it.
 */
function onePerPath(errors: readonly ErrorObject[]): ItemError[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const path = e.keyword === 'required'
      ? `${e.instancePath}/${String((e.params as { missingProperty: string }).missingProperty)}`
      : e.instancePath;
    const list = byPath.get(path);
    if (list) list.push(e);
    else byPath.set(path, [e]);
  }
  return [...byPath].map(([path, found]) => {
    const decisive = found.find((e) => e.keyword === 'enum') ?? found.find((e) => e.keyword === 'type');
    const messages = decisive ? [messageFor(decisive)] : [...new Set(found.map(messageFor))];
    return { path, message: messages.join('; ') };
  });
}

/**
 * Every problem of one item as `{path, message}`, JSON-pointer paths inside the item, one per path.
 * `textsProven`: the caller knows every string in the item is storable text (no NUL, no unpaired
 * surrogate), as it is for an item parsed from a JSON body that is valid UTF-8 and holds no `\u`
 * escape (json-body.ts `jsonBodyBytes`): JSON refuses an unescaped control character and UTF-8
 * cannot spell a surrogate, so the per-string check (a fifth of validating a catalogue batch) is
 * left out. The refusals are the same either way.
 */
export type ItemValidator = (item: unknown, textsProven?: boolean) => ItemError[];

/** Compiles an item schema into an `ItemValidator`. */
export function compileItemValidator(schema: TSchema): ItemValidator {
  const exact = asksForTwoCharacters(schema);
  const checked = compileWith(exact ? exactAjv : unitAjv, schema, exact);
  const unchecked = lazy(() => compileWith((exact ? uncheckedAjv.exact : uncheckedAjv.unit)(), schema, exact));
  return (item, textsProven = false) => (textsProven ? unchecked() : checked)(item);
}

function compileWith(ajv: Ajv, schema: TSchema, exactLengths: boolean): (item: unknown) => ItemError[] {
  const validate: ValidateFunction = ajv.compile(schema as object);
  if (exactLengths) return (item) => (validate(item) ? [] : onePerPath(validate.errors ?? []));
  return (item) => {
    if (validate(item)) return [];
    // Every error is there (allErrors): leaving out the maxLength refusals of strings within their
    // limit in code points leaves exactly what counting in code points would have found.
    const errors = (validate.errors ?? []).filter((e) => !(e.keyword === 'maxLength' && withinMaxLength(item, e)));
    return errors.length === 0 ? [] : onePerPath(errors);
  };
}

/** Whether a schema (or one inside it) has a minLength above 1. */
function asksForTwoCharacters(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if (Array.isArray(schema)) return schema.some(asksForTwoCharacters);
  return Object.entries(schema).some(([key, value]) => (key === 'minLength' && typeof value === 'number' && value > 1) || asksForTwoCharacters(value));
}

/** The string a maxLength error is about, counted in code points, is within the limit. */
function withinMaxLength(item: unknown, error: ErrorObject): boolean {
  let value: unknown = item;
  for (const token of error.instancePath.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return typeof value === 'string' && [...value].length <= (error.params as { limit: number }).limit;
}
