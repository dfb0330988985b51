import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, roundUnits, toUnits, unitsOf, unitsText } from '../../src/platform/decimal.js';

/** Exact decimals as integer units, checked against decimal.js. */

describe('unitsOf / toUnits / unitsText', () => {
  const cases: Array<[string, bigint, number]> = [
    ['0', 0n, 0], ['12.3400', 123400n, 4], ['-0.0001', -1n, 4], ['7.', 7n, 0], ['123456789012345.6789', 1234567890123456789n, 4], ['1e-7', 1n, 7],
  ];
  for (const [text, units, places] of cases) {
    it(`${text} is ${units} units of 10^-${places}`, () => assert.deepEqual(unitsOf(text), { units, places }));
  }
  it('toUnits scales exactly and refuses digits it would drop', () => {
    assert.equal(toUnits('12.34', 4), 123400n);
    assert.equal(toUnits('12.3400', 2), 1234n);
    assert.equal(toUnits('-3', 4), -30000n);
    assert.equal(toUnits('-12.3400', 4), -123400n, 'exactly 4 places, the fast path');
    assert.equal(toUnits('0.0001', 4), 1n);
    assert.equal(toUnits('1e-4', 4), 1n);
    assert.throws(() => toUnits('0.12345', 4), /more than 4 decimal places/);
    assert.throws(() => unitsOf('abc'));
  });
  it('unitsText renders exactly the places asked, never "-0"', () => {
    assert.equal(unitsText(123400n, 4), '12.3400');
    assert.equal(unitsText(-1n, 4), '-0.0001');
    assert.equal(unitsText(0n, 4), '0.0000');
    assert.equal(unitsText(5n, 0), '5');
    assert.equal(unitsText(-5n, 2), '-0.05');
  });
});

describe('roundUnits: half away from zero, as Dec ROUND_HALF_UP', () => {
  const cases = ['0.00005', '-0.00005', '0.00004', '-0.00004', '1.99995', '-1.99995', '123.45675', '0', '2.5', '-2.5', '0.000049999'];
  for (const text of cases) {
    it(`${text} to 4 places and to 2`, () => {
      const { units, places } = unitsOf(text);
      for (const to of [4, 2, 0]) {
        const rounded = new Dec(text).toFixed(to);
        // decimal.js writes a negative amount that rounds to nothing as "-0.00"; money never does.
        const expected = new Dec(rounded).isZero() ? rounded.replace(/^-/, '') : rounded;
        assert.equal(unitsText(roundUnits(units, places, to), to), expected);
      }
    });
  }
  it('a smaller scale only widens', () => assert.equal(roundUnits(12n, 2, 4), 1200n));
});
