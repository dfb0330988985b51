import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brandCodes, brandEntitlement, type EntitlementAccount } from '../../../src/modules/catalogue/entitlement.js';

/** LOCKED is a restricted brand; OPEN is a brand that is not; anything else has no brand row. */
const RESTRICTED: ReadonlySet<string> = new Set(['LOCKED', 'LOCKED2']);

describe('brandCodes', () => {
  const rows: Array<[string | null, string[]]> = [
    [null, []],
    ['', []],
    ['   ', []],
    ['OPEN', ['OPEN']],
    ['OPEN,LOCKED', ['OPEN', 'LOCKED']],
    [' OPEN , LOCKED ', ['OPEN', 'LOCKED']],
    ['OPEN,,LOCKED,', ['OPEN', 'LOCKED']],
    [',', []],
    ['open,OPEN', ['open', 'OPEN']],
  ];
  for (const [list, codes] of rows) {
    it(`${JSON.stringify(list)} → ${JSON.stringify(codes)}`, () => {
      assert.deepEqual(brandCodes(list), codes);
    });
  }
});

describe('brandEntitlement (decisions §4, one row per rule)', () => {
  const account = (allowedBrands: string | null, indentBrands: string | null = null): EntitlementAccount => ({ allowedBrands, indentBrands });
  const rows: Array<[name: string, brandCode: string | null, account: EntitlementAccount, canBuy: boolean]> = [
    ['a product without a brand is visible to all, even a narrow account', null, account('OPEN'), true],
    ['a blank brand code counts as no brand', '  ', account('OPEN'), true],
    ['an empty brand code counts as no brand', '', account('OTHER'), true],
    ['blank allowedBrands (null): an unrestricted brand', 'OPEN', account(null), true],
    ['blank allowedBrands (null): not a restricted brand', 'LOCKED', account(null), false],
    ['blank allowedBrands (""): an unrestricted brand', 'OPEN', account(''), true],
    ['blank allowedBrands (spaces): not a restricted brand', 'LOCKED', account('   '), false],
    ['blank allowedBrands: an unknown brand code counts as not restricted', 'NO-ROW', account(null), true],
    ['a list of only commas counts as blank', 'LOCKED', account(' , '), false],
    ['listed allowedBrands: a listed brand', 'OPEN', account('OPEN,OTHER'), true],
    ['listed allowedBrands: an unlisted unrestricted brand is not visible', 'OPEN', account('OTHER'), false],
    ['listed allowedBrands: a listed restricted brand is visible', 'LOCKED', account('OTHER,LOCKED'), true],
    ['listed allowedBrands: an unlisted unknown brand is not visible', 'NO-ROW', account('OTHER'), false],
    ['listed allowedBrands: spaces around codes are ignored', 'OPEN', account(' OTHER , OPEN '), true],
    ['listed allowedBrands: a code is not a prefix match', 'OPEN', account('OPENER,OPE'), false],
    ['indentBrands add a restricted brand to blank allowedBrands', 'LOCKED', account(null, 'LOCKED'), true],
    ['indentBrands add a brand to listed allowedBrands', 'OPEN', account('OTHER', 'OPEN'), true],
    ['indentBrands add a restricted brand to listed allowedBrands', 'LOCKED2', account('OTHER', 'LOCKED, LOCKED2'), true],
    ['indentBrands do not add brands they do not list', 'LOCKED2', account(null, 'LOCKED'), false],
    ['blank indentBrands add nothing', 'LOCKED', account(null, ' '), false],
    ['codes compare case-sensitively (allowedBrands)', 'OPEN', account('open'), false],
    ['codes compare case-sensitively (indentBrands)', 'LOCKED', account(null, 'locked'), false],
    ['codes compare case-sensitively (restricted set): "locked" has no brand row', 'locked', account(null), true],
    ["the product's brand code is trimmed too", ' OPEN ', account('OPEN'), true],
  ];
  for (const [name, brandCode, acc, canBuy] of rows) {
    it(`${name}: ${canBuy ? 'may buy' : 'may not buy'}`, () => {
      assert.equal(brandEntitlement(acc, RESTRICTED)(brandCode), canBuy);
    });
  }
});
