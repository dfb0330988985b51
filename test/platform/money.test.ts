import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currencyMinorUnit, roundToMinorUnit } from '../../src/platform/money.js';

describe('currencyMinorUnit: ISO 4217 minor units', () => {
  const cases: Array<[string, number, string]> = [
    ['AUD', 2, 'the site default'],
    ['USD', 2, ''],
    ['EUR', 2, ''],
    ['NZD', 2, 'not listed: 2'],
    ['JPY', 0, 'no minor unit'],
    ['KRW', 0, ''],
    ['KWD', 3, 'fils'],
    ['BHD', 3, ''],
    ['CLF', 4, ''],
    ['HUF', 2, 'ISO keeps 2 where Intl (CLDR) displays 0'],
    ['IQD', 3, 'ISO keeps 3 where Intl (CLDR) displays 0'],
    ['jpy', 0, 'in any case'],
  ];
  for (const [currency, places, why] of cases) {
    it(`${currency}: ${places}${why ? ` (${why})` : ''}`, () => assert.equal(currencyMinorUnit(currency), places));
  }
});

describe('roundToMinorUnit: once, half away from zero, into units of 10^-4', () => {
  // [units, their places, minor unit, result in units of 10^-4, why]
  const cases: Array<[bigint, number, number, bigint, string]> = [
    [652575n, 4, 2, 652600n, '3 × 21.7525 = 65.2575 → 65.26'],
    [652549n, 4, 2, 652500n, '65.2549 → 65.25'],
    [5n, 3, 2, 100n, '0.005 is a half: up, not to even'],
    [15n, 3, 2, 200n, '0.015 is a half: up'],
    [-5n, 3, 2, -100n, 'a negative half: away from zero'],
    [-4n, 3, 2, 0n, 'a negative amount rounding to nothing is 0'],
    [6525750n, 5, 0, 650000n, 'JPY: 65.2575 → 65'],
    [65500n, 3, 0, 660000n, 'JPY: 65.5 is a half: up'],
    [652575n, 4, 3, 652580n, 'KWD: 65.2575 → 65.258'],
    [652575n, 4, 4, 652575n, 'CLF: as it is'],
    [7n, 0, 2, 70000n, 'a whole number gains places, nothing rounds'],
    [123456789012345678901234567890n, 10, 2, 123456789012345678901200n, 'beyond a double: 12345678901234567890.1234567890 → …0.12'],
  ];
  for (const [units, places, minorUnit, expected, why] of cases) {
    it(why, () => assert.equal(roundToMinorUnit(units, places, minorUnit), expected));
  }

  it('refuses a minor unit it cannot store', () => {
    for (const minorUnit of [-1, 5, 1.5]) assert.throws(() => roundToMinorUnit(1n, 4, minorUnit), /minor unit/);
  });
});
