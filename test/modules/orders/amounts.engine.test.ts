import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { documentTotals, lineAmount, sumOf, totalsOf } from '../../../src/modules/orders/amounts.engine.js';
import { Dec } from '../../../src/platform/decimal.js';

/** Document amounts (decisions §6, "Document amounts add up"): one row per rule. */

describe('lineAmount: quantity × net unit price, rounded once to the minor unit', () => {
  // [quantity, unit price, minor unit, line amount, why]
  const cases: Array<[number, string, number, string, string]> = [
    [3, '21.7525', 2, '65.2600', 'the issue: 65.2575, a half at the third place, up'],
    [3, '21.7500', 2, '65.2500', 'a 2-place price: nothing to round'],
    [3, '19.5773', 2, '58.7300', 'the ERP contract\'s old example, 58.7319'],
    [1, '9.9999', 2, '10.0000', 'a single unit is rounded too'],
    [7, '0.0007', 2, '0.0000', '0.0049: down'],
    [50, '0.0001', 2, '0.0100', '0.005: a half, up'],
    [2_147_483_647, '99999.9999', 2, '214748364485251.6400', 'the largest quantity at a large price: 214748364485251.6353, exact, no float'],
    [3, '21.7525', 0, '65.0000', 'JPY: no minor unit'],
    [2, '0.2500', 0, '1.0000', 'JPY: 0.5 is a half, up'],
    [3, '21.7525', 3, '65.2580', 'KWD: 3 places'],
    [3, '21.7525', 4, '65.2575', 'CLF: 4 places, as it is'],
    [4, '12', 2, '48.0000', 'a price written without places'],
  ];
  for (const [quantity, unitPrice, minorUnit, expected, why] of cases) {
    it(`${quantity} × ${unitPrice} at ${minorUnit} places → ${expected} (${why})`, () => {
      assert.equal(lineAmount(quantity, unitPrice, minorUnit), expected);
    });
  }

  it('refuses a quantity that is not a whole number', () => {
    assert.throws(() => lineAmount(1.5, '1', 2), /whole number/);
  });
});

describe('documentTotals: net = Σ line amounts, tax = Σ line taxes, total = net + tax + freight', () => {
  it('adds the rounded figures, so the issue\'s basket adds up to the cent', () => {
    // Lines that each round up: kept to 4 places and rounded apart, they would read 0.01 less than their sum.
    const lines = [
      { lineAmount: lineAmount(3, '21.7525', 2), taxAmount: '6.5300' },
      { lineAmount: lineAmount(1, '0.0050', 2), taxAmount: '0.0000' },
      { lineAmount: null, taxAmount: '0.0000' },
    ];
    assert.deepEqual(documentTotals(lines, '32.6000', 2), {
      net: '65.2700', tax: '6.5300', freight: '32.6000', total: '104.4000',
      display: { net: '65.27', tax: '6.53', freight: '32.60', total: '104.40' },
    });
  });

  it('writes display with the minor unit\'s places', () => {
    assert.deepEqual(documentTotals([{ lineAmount: '65.0000', taxAmount: '7.0000' }], '1200.0000', 0).display, { net: '65', tax: '7', freight: '1200', total: '1272' });
    assert.deepEqual(documentTotals([{ lineAmount: '65.2580', taxAmount: '6.5260' }], '0.0000', 3).display, { net: '65.258', tax: '6.526', freight: '0.000', total: '71.784' });
  });

  it('an empty sum is 0', () => {
    assert.equal(sumOf([]), '0.0000');
    assert.equal(sumOf([null]), '0.0000');
  });
});

describe('totalsOf: an order as stored, never priced again', () => {
  it('keeps the amounts of an order placed before the rule, 4 places and its stored total; display rounds each as it always did', () => {
    assert.deepEqual(totalsOf({ net: '58.7319', tax: '5.8732', freight: '12.5000', total: '77.1051' }, 2), {
      net: '58.7319', tax: '5.8732', freight: '12.5000', total: '77.1051',
      display: { net: '58.73', tax: '5.87', freight: '12.50', total: '77.11' },
    });
  });
});

describe('the ERP contract\'s example body (docs/erp-contract.md)', () => {
  it('adds up under the rule: each line amount, its tax, and the totals', () => {
    const doc = fs.readFileSync(new URL('../../../docs/erp-contract.md', import.meta.url), 'utf8');
    const json = /### Body[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(json, 'the contract has an example body');
    const body = JSON.parse(json) as {
      lines: Array<{ quantity: number; unitPrice: string; lineAmount: string; taxAmount: string }>;
      charges: Array<{ amount: string; taxAmount: string }>;
      totals: { net: string; tax: string; freight: string; total: string };
    };
    for (const line of body.lines) {
      assert.equal(line.lineAmount, lineAmount(line.quantity, line.unitPrice, 2));
      assert.equal(line.taxAmount, lineAmount(1, new Dec(line.lineAmount).dividedBy(10).toFixed(4), 2), 'the example\'s 10 % of the line amount, rounded to cents');
    }
    const totals = documentTotals(body.lines.map((l) => ({ lineAmount: l.lineAmount, taxAmount: l.taxAmount })), sumOf(body.charges.map((c) => c.amount)), 2);
    assert.deepEqual(body.totals, { net: totals.net, tax: totals.tax, freight: totals.freight, total: totals.total });
  });
});
