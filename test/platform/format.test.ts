import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatBalance, formatDate, formatDateTime, formatMoney, formatQuantity } from '../../src/platform/format.js';

describe('formats for people (portal pages and mail)', () => {
  // The code and the amount are joined by a no-break space, so a line never breaks between them.
  // Nothing is rounded here: an amount shows its own places, at least the currency's minor unit.
  const cases: Array<[string, string, string, string]> = [
    ['65.2600', 'AUD', 'AUD\u00a065.26', 'a document amount: cents'],
    ['21.7525', 'AUD', 'AUD\u00a021.7525', 'a unit price with 4 places shows all 4'],
    ['21.7530', 'AUD', 'AUD\u00a021.753', 'a unit price with 3 places shows 3'],
    ['39.9500', 'AUD', 'AUD\u00a039.95', 'a unit price with 2 places shows 2'],
    ['1234.5000', 'AUD', 'AUD\u00a01,234.50', 'never fewer than the minor unit'],
    ['0.0000', 'AUD', 'AUD\u00a00.00', 'zero'],
    ['-2.0050', 'AUD', '-AUD\u00a02.005', 'an amount pushed with more places than cents is shown as pushed, never rounded'],
    ['52.0000', 'NZD', 'NZD\u00a052.00', 'another currency of 2 places'],
    ['1200.0000', 'JPY', 'JPY\u00a01,200', 'JPY has no minor unit'],
    ['1.5000', 'KWD', 'KWD\u00a01.500', 'KWD has 3 places'],
    ['1550.0000', 'HUF', 'HUF\u00a01,550.00', 'HUF has 2 places by ISO 4217 (Intl alone would write 1,550)'],
    // Beyond a double's 15–17 digits: still exact.
    ['12345678901234567.1250', 'AUD', 'AUD\u00a012,345,678,901,234,567.125', 'beyond a double'],
  ];
  for (const [amount, currency, expected, why] of cases) {
    it(`money ${amount} ${currency} → ${expected} (${why})`, () => assert.equal(formatMoney(amount, currency), expected));
  }
  it('says when there is no price', () => {
    assert.equal(formatMoney(null, 'AUD'), 'No price');
    assert.equal(formatMoney(null, 'AUD', '—'), '—');
  });
  it('writes quantities with separators and dates with the month in words', () => {
    assert.equal(formatQuantity(1200), '1,200');
    assert.equal(formatDate('2026-11-24'), '24 Nov 2026');
    assert.equal(formatDate('2026-01-05T23:30:00.000Z'), '5 Jan 2026');
    assert.equal(formatDate(null), '—');
  });
  // A balance or ledger amount in the buyer's favour is a credit, in words, not a minus sign.
  const balances: Array<[string | null, string, string]> = [
    ['-480.0000', 'AUD\u00a0480.00 credit', 'a payment or credit note'],
    ['-1234.5000', 'AUD\u00a01,234.50 credit', 'with separators'],
    ['-2.0050', 'AUD\u00a02.005 credit', 'never rounded'],
    ['480.0000', 'AUD\u00a0480.00', 'owed: as formatMoney'],
    ['-0.0000', 'AUD\u00a00.00', 'zero has no sign and no credit'],
    ['0', 'AUD\u00a00.00', 'zero'],
    [null, 'No price', 'none'],
  ];
  for (const [amount, expected, why] of balances) {
    it(`balance ${amount} → ${expected} (${why})`, () => assert.equal(formatBalance(amount, 'AUD'), expected));
  }
  it('says when there is no balance in the words given', () => assert.equal(formatBalance(null, 'AUD', 'Not given'), 'Not given'));

  it('writes an instant as its date and 24-hour time in the site\'s time zone', () => {
    const at = new Date('2026-11-24T13:05:00Z');
    assert.equal(formatDateTime(at, 'UTC'), '24 Nov 2026, 13:05');
    assert.equal(formatDateTime(at, 'Australia/Sydney'), '25 Nov 2026, 00:05', 'AEDT, UTC+11: the next day');
    assert.equal(formatDateTime(new Date('2026-06-30T23:59:00Z'), 'Australia/Perth'), '1 Jul 2026, 07:59');
  });
});
