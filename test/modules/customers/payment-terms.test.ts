import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAYMENT_TERMS } from '../../../src/modules/customers/customers.schemas.js';
import { paymentTermsWords } from '../../../src/modules/customers/payment-terms.js';

/** Payment terms codes in words: every code the customer push takes, and the shapes beyond them. */
describe('payment terms in words', () => {
  const cases: Array<[string, string, string]> = [
    ['COD', 'Cash on delivery', 'named'],
    ['PREPAID', 'Payment in advance', 'named'],
    ['NET7', '7 days net', 'NETn'],
    ['NET14', '14 days net', 'NETn'],
    ['NET30', '30 days net', 'NETn'],
    ['NET45', '45 days net', 'NETn'],
    ['NET60', '60 days net', 'NETn'],
    ['EOM', 'Due at the end of the month', 'named'],
    ['EOM30', '30 days after the end of the month', 'EOMn'],
    ['NET21', '21 days net', 'a NETn not in the list yet'],
    ['NET1', '1 day net', 'one day'],
    ['NET0', 'Due on receipt', 'no days'],
    ['net30', '30 days net', 'any letter case'],
    ['EOM0', 'Due at the end of the month', 'no days after the month'],
    ['2/10NET30', '2/10NET30', 'a code it does not know, as it is'],
    [' ZZ9 ', 'ZZ9', 'unknown, trimmed'],
    ['NET1000', 'NET1000', 'beyond three digits: not guessed'],
  ];
  for (const [code, words, why] of cases) it(`${JSON.stringify(code)} → ${words} (${why})`, () => assert.equal(paymentTermsWords(code), words));

  it('has words, not the code, for every code the customer push takes', () => {
    for (const code of PAYMENT_TERMS) assert.notEqual(paymentTermsWords(code), code, code);
  });
});
