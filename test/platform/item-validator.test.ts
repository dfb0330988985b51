import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Type } from 'typebox';
import {
  optionalEnum, optionalString, requiredDecimal, requiredEnum, requiredString,
} from '../../src/platform/schema/fields.js';
import { compileItemValidator } from '../../src/platform/schema/item-validator.js';
import { jsonBodyBytes, parseJsonBody } from '../../src/platform/http/json-body.js';

/** The per-item validator on its own: Ajv's errors turned into one `{path, message}` per field. */

const validate = compileItemValidator(Type.Object({
  code: requiredString(5),
  name: optionalString(10),
  kind: requiredEnum(['Price', 'Discount'] as const),
  mode: optionalEnum(['Standard', 'ListOnly'] as const),
  amount: requiredDecimal(),
}));
const valid = { code: 'C-1', kind: 'Price', amount: 1 };

describe('item validator: one error per field path', () => {
  it('accepts a valid item', () => {
    assert.deepEqual(validate(valid), []);
  });

  it('answers an enum sent as another type with the allowed values only, not "must be a string" as well', () => {
    for (const wrong of [5, true, ['Price'], { v: 'Price' }]) {
      assert.deepEqual(validate({ ...valid, kind: wrong }), [{ path: '/kind', message: 'must be one of: Price, Discount' }], JSON.stringify(wrong));
      assert.deepEqual(validate({ ...valid, mode: wrong }), [{ path: '/mode', message: 'must be one of: Standard, ListOnly' }], JSON.stringify(wrong));
    }
    assert.deepEqual(validate({ ...valid, kind: null }), [{ path: '/kind', message: 'must be one of: Price, Discount' }]);
  });

  it('joins several problems of one field into one error, in the order found', () => {
    assert.deepEqual(validate({ ...valid, code: 'AB\u0000CDEF' }), [{
      path: '/code',
      message: 'must not contain the NUL character (U+0000), which cannot be stored; must be at most 5 characters long',
    }]);
  });

  it('keeps one error per field when several fields are wrong, in schema order', () => {
    assert.deepEqual(validate({ code: 7, name: 'n'.repeat(11), kind: 1, amount: 'x' }), [
      { path: '/code', message: 'must be a string' },
      { path: '/name', message: 'must be at most 10 characters long' },
      { path: '/kind', message: 'must be one of: Price, Discount' },
      { path: '/amount', message: 'must be a decimal number such as "12.5" (digits, optional sign and point)' },
    ]);
  });

  it('counts a length in characters (code points), as PostgreSQL does: a character beyond the BMP is one', () => {
    const lengths = compileItemValidator(Type.Object({ code: requiredString(3), tags: Type.Array(Type.Object({ 'a/b': optionalString(2) })) }));
    assert.deepEqual(lengths({ code: '🧵🧵🧵', tags: [{ 'a/b': '🧵é' }] }), [], '3 and 2 characters, 6 and 3 UTF-16 units');
    assert.deepEqual(lengths({ code: '🧵🧵🧵🧵', tags: [{ 'a/b': '🧵🧵🧵' }] }), [
      { path: '/code', message: 'must be at most 3 characters long' },
      { path: '/tags/0/a~1b', message: 'must be at most 2 characters long' },
    ]);
    assert.deepEqual(lengths({ code: '🧵🧵', tags: [{ 'a/b': 7 }] }), [{ path: '/tags/0/a~1b', message: 'must be a string' }], 'a unit-long string beside another error');
  });

  it('refuses a string too long in characters, and only such a string, whatever it holds', () => {
    const lengths = compileItemValidator(Type.Object({ a: requiredString(4), b: optionalString(1) }));
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '🧵', '\u{10FFFF}', 'z'), minLength: 1, maxLength: 7 });
    fc.assert(fc.property(text, fc.option(text, { nil: undefined }), (a, b) => {
      const expected = [
        ...([...a].length > 4 ? [{ path: '/a', message: 'must be at most 4 characters long' }] : []),
        ...(b !== undefined && [...b].length > 1 ? [{ path: '/b', message: 'must be at most 1 characters long' }] : []),
      ];
      assert.deepEqual(lengths(b === undefined ? { a } : { a, b }), expected);
    }), { numRuns: 1000 });
  });

  it('counts characters for a minimum above one too (a schema asking for two)', () => {
    const two = compileItemValidator(Type.Object({ a: Type.String({ minLength: 2, maxLength: 3 }) }));
    assert.deepEqual(two({ a: '🧵' }), [{ path: '/a', message: 'must be at least 2 characters long' }], 'one character, two UTF-16 units');
    assert.deepEqual(two({ a: '🧵🧵🧵' }), []);
  });

  it('with the texts proven, leaves the NUL and surrogate check out and finds everything else as before', () => {
    assert.deepEqual(validate({ ...valid, code: 'AB\u0000CDEF' }, true), [{ path: '/code', message: 'must be at most 5 characters long' }]);
    assert.deepEqual(validate({ ...valid, name: '\ud800' }, true), []);
    assert.deepEqual(validate({ code: 7, kind: 1, amount: 'x' }, true), validate({ code: 7, kind: 1, amount: 'x' }));
  });

  it('finds the same problems in any item parsed from a body the JSON parser proves texts for (no \\u escape)', () => {
    // Any string: NUL, other control characters and unpaired surrogates included; JSON.stringify
    // escapes those as \u, so a body that holds one is never vouched for.
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', '\ud800', '\udfff', '\u001f', 'é', '🧵', '"', '\\'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 8 });
    const item = fc.record({ code: fc.oneof(text, fc.integer()), name: fc.option(text, { nil: undefined }), kind: fc.constantFrom('Price', 'Discount', 'Other'), amount: fc.constantFrom(1, '2.5', 'x') }, { requiredKeys: ['kind', 'amount'] });
    let proven = 0;
    fc.assert(fc.property(fc.array(item, { minLength: 1, maxLength: 4 }), (data) => {
      const bytes = Buffer.from(JSON.stringify({ source: 't', data }));
      const body = parseJsonBody(bytes) as { data: unknown[] };
      if (jsonBodyBytes(body) === undefined) return;
      proven += 1;
      for (const parsed of body.data) assert.deepEqual(validate(parsed, true), validate(parsed));
    }), { numRuns: 2000 });
    assert.ok(proven > 100, `bodies with no \\u escape were generated (${proven})`);
  });
});
