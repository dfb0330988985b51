import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Dec, MAX_INTEGER_DIGITS, decimalProblem, toDecimalText } from '../../src/platform/decimal.js';
import { textProblem } from '../../src/platform/schema/formats.js';

/**
 * decimalProblem and toDecimalText read a plainly written decimal from its text instead of building
 * a Decimal (the integration batches' hot path). These tests hold them to decimal.js itself: the
 * reference below is what both did before, written with decimal.js alone.
 */

function referenceProblem(value: unknown, scale: number, minimum?: number): string | undefined {
  let d: InstanceType<typeof Dec>;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    d = new Dec(value);
    if (d.precision(true) > 15) {
      return 'has more than 15 significant digits, which a JSON number cannot carry exactly; send it as a string';
    }
  } else if (typeof value === 'string') {
    if (!/^-?\d+(\.\d+)?$/.test(value)) return 'must be a decimal number such as "12.5" (digits, optional sign and point)';
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

const referenceText = (value: number | string): string => new Dec(value).toFixed();

/** Decimal texts as senders write them: signs, leading and trailing zeros, long and short. */
const decimalText = fc.tuple(
  fc.constantFrom('', '-'),
  fc.stringMatching(/^[0-9]{1,20}$/),
  fc.option(fc.stringMatching(/^[0-9]{1,8}$/), { nil: undefined }),
).map(([sign, whole, fraction]) => `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}`);

const anyNumber = fc.oneof(
  fc.double({ noNaN: false }),
  fc.integer().map((n) => n / 10_000),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n / 100),
  fc.constantFrom(0, -0, 1e21, 1e-7, 123456789012345680000, 0.1 + 0.2, 999999999999999.9, Number.MAX_SAFE_INTEGER),
);

describe('decimalProblem: the text-read checks agree with decimal.js', () => {
  const options: Array<[number, number | undefined]> = [[4, 0], [4, undefined], [2, 0], [0, 1], [6, -5]];

  it('on decimal texts', () => {
    fc.assert(fc.property(decimalText, fc.constantFrom(...options), (text, [scale, minimum]) => {
      assert.equal(decimalProblem(text, scale, minimum), referenceProblem(text, scale, minimum), text);
    }), { numRuns: 5000 });
  });

  it('on JSON numbers, plain and with an exponent', () => {
    fc.assert(fc.property(anyNumber, fc.constantFrom(...options), (value, [scale, minimum]) => {
      assert.equal(decimalProblem(value, scale, minimum), referenceProblem(value, scale, minimum), String(value));
    }), { numRuns: 5000 });
  });

  it('on the edges: zeros, signs, 15 digits each side', () => {
    const cases: unknown[] = [
      '0', '-0', '-0.000', '000.100', '-0.0001', '1.23450', '123456789012345', '1234567890123456', '0001234567890123456.5',
      0, -0, 0.5, -0.5, 123456789012345, 1234567890123456, 1.5e-7, 1e21, -1e21, '1e5', ' 1', '1.', '.5', '+1', null, true,
    ];
    for (const value of cases) {
      for (const [scale, minimum] of options) {
        assert.equal(decimalProblem(value, scale, minimum), referenceProblem(value, scale, minimum), `${JSON.stringify(value)} ${scale} ${minimum}`);
      }
    }
  });
});

describe('toDecimalText: the text-read canonical form agrees with decimal.js', () => {
  it('on decimal texts and numbers', () => {
    fc.assert(fc.property(fc.oneof(decimalText, anyNumber.filter(Number.isFinite)), (value) => {
      assert.equal(toDecimalText(value), referenceText(value), String(value));
    }), { numRuns: 5000 });
    for (const value of ['-0', '-0.00', '007.50', '0.00', '-0.5', '10', '10.0', 1e21, 1e-7, -0, 52]) {
      assert.equal(toDecimalText(value), referenceText(value), String(value));
    }
    assert.equal(toDecimalText(null), null);
    assert.equal(toDecimalText(undefined), null);
  });
});

describe('textProblem: isWellFormed finds what /\\p{Cs}/u found', () => {
  it('on strings of any UTF-16 code units', () => {
    const unit = fc.oneof(fc.integer({ min: 0xd7f0, max: 0xe010 }), fc.integer({ min: 1, max: 0xffff }));
    fc.assert(fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
      const text = String.fromCharCode(...units);
      const expected = text.includes('\u0000') ? 'NUL' : /\p{Cs}/u.test(text) ? 'unpaired' : undefined;
      const found = textProblem(text);
      if (expected === undefined) assert.equal(found, undefined, JSON.stringify(text));
      else assert.match(found ?? '', new RegExp(expected), JSON.stringify(text));
    }), { numRuns: 5000 });
  });
});
