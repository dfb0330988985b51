import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDate, formatMoney, formatQuantity } from '../../src/platform/format.js';

describe('formats for people (portal pages and mail)', () => {
  // The code and the amount are joined by a no-break space, so a line never breaks between them.
  const cases: Array<[string, string, string]> = [
    ['1234.5650', 'AUD', 'AUD\u00a01,234.57'],
    ['1234.5649', 'AUD', 'AUD\u00a01,234.56'],
    ['0.0050', 'AUD', 'AUD\u00a00.01'],
    ['0.0049', 'AUD', 'AUD\u00a00.00'],
    ['-2.0050', 'AUD', '-AUD\u00a02.01'],
    ['52.0000', 'NZD', 'NZD\u00a052.00'],
    // Beyond a double's 15–17 digits: still exact.
    ['12345678901234567.1250', 'AUD', 'AUD\u00a012,345,678,901,234,567.13'],
  ];
  for (const [amount, currency, expected] of cases) {
    it(`money ${amount} ${currency} → ${expected} (2 places, half away from zero)`, () => assert.equal(formatMoney(amount, currency), expected));
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
});
