import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  gstPairKey, taxDataKeys, taxLine, taxResolver,
  type JurisdictionRate, type LineTax, type TaxAccount, type TaxComponent, type TaxData, type TaxDataKeys,
  type TaxProduct, type TaxShipTo,
} from '../../../src/modules/tax/tax.engine.js';

/** Line tax, decisions §6 and the lead's order of checks: one row per rule and per broken link. */

const DAY = '2026-07-15';

const rate = (taxGroupCode: string, ratePercent: string, effectiveDate: string | null = null): JurisdictionRate =>
  ({ taxGroupCode, ratePercent, effectiveDate });

/** [business posting group, product posting group, ratePercent] */
const GST_PAIRS: Array<[string, string, string]> = [
  ['DOMESTIC', 'GST10', '10.0000'],
  ['DOMESTIC', 'FREE', '0.0000'],
  ['EXPORT', 'GST10', '0.0000'],
  ['A/B', 'C', '1.0000'],
];

/** As the loader returns it: 4-place text, dates as YYYY-MM-DD or null; rates in no particular order. */
const DATA: TaxData = {
  areas: new Map<string, string[]>([
    ['SYD', ['CITY', 'NSW']],
    ['MEL', ['VIC']],
    ['EMPTY', []],
    ['GHOST', ['NOWHERE', 'NSW']],
    ['GHOSTS', ['NOPE1', 'NOPE2', 'VIC']],
    ['TENTHS', ['T1', 'T2']],
    ['BARE-AREA', ['BARE']],
  ]),
  jurisdictions: new Map<string, JurisdictionRate[]>([
    ['NSW', [rate('GOODS', '6.0000', '2027-01-01'), rate('GOODS', '4.0000'), rate('FOOD', '0.0000'), rate('GOODS', '5.0000', '2026-07-01')]],
    ['CITY', [rate('GOODS', '2.5000'), rate('LUXURY', '1.0000'), rate('FOOD', '0.0000')]],
    ['VIC', [rate('GOODS', '10.0000', '2026-01-01'), rate('LATE', '4.0000', '2027-03-01'), rate('LATE', '3.0000', '2026-09-01')]],
    ['T1', [rate('GOODS', '0.1000')]],
    ['T2', [rate('GOODS', '0.2000')]],
    ['BARE', []],
  ]),
  gst: new Map(GST_PAIRS.map(([business, group, ratePercent]) => [gstPairKey(business, group), ratePercent])),
};

const account = (over: Partial<TaxAccount> = {}): TaxAccount => ({ taxLiable: true, taxAreaCode: 'SYD', gstBusinessPostingGroup: null, ...over });
const shipTo = (over: Partial<TaxShipTo> = {}): TaxShipTo => ({ taxLiable: null, taxAreaCode: null, isFirstNations: null, ...over });
const product = (over: Partial<TaxProduct> = {}): TaxProduct => ({ sku: 'TEE-1', taxGroupCode: 'GOODS', gstProductPostingGroup: 'GST10', ...over });

const component = (code: string, ratePercent: string, effectiveDate: string | null = null): TaxComponent => ({ code, ratePercent, effectiveDate });

const byChain = (amount: string, ratePercent: string, taxAreaCode: string, ...components: TaxComponent[]): LineTax =>
  ({ amount, ratePercent, basis: 'Jurisdictions', reason: null, taxAreaCode, components });
const byGst = (amount: string, ratePercent: string, pair: string): LineTax =>
  ({ amount, ratePercent, basis: 'Gst', reason: null, taxAreaCode: null, components: [component(pair, ratePercent)] });
const untaxed = (reason: string, taxAreaCode: string | null = null): LineTax =>
  ({ amount: '0.0000', ratePercent: null, basis: 'Untaxed', reason, taxAreaCode, components: [] });
const notLiable = (whose: 'ship-to' | 'account'): LineTax =>
  ({ amount: '0.0000', ratePercent: null, basis: 'NotLiable', reason: `not tax liable: the ${whose}'s taxLiable is false`, taxAreaCode: null, components: [] });
const FIRST_NATIONS: LineTax =
  { amount: '0.0000', ratePercent: null, basis: 'FirstNations', reason: 'First Nations destination: exempt', taxAreaCode: null, components: [] };

/** SYD on DAY for GOODS: NSW 5 % (from 2026-07-01) + CITY 2.5 % (since always). */
const SYD_GOODS = byChain('7.5000', '7.5000', 'SYD', component('CITY', '2.5000'), component('NSW', '5.0000', '2026-07-01'));
const MEL_GOODS = byChain('10.0000', '10.0000', 'MEL', component('VIC', '10.0000', '2026-01-01'));
const DOMESTIC_GST10 = byGst('10.0000', '10.0000', 'DOMESTIC/GST10');

interface Case {
  name: string;
  account?: Partial<TaxAccount>;
  shipTo?: Partial<TaxShipTo>;
  product?: Partial<TaxProduct>;
  net?: string;
  day?: string;
  expected: LineTax;
}

const cases: Case[] = [
  // (1) Liability: the ship-to's flag over the account's; neither → liable.
  { name: 'ship-to not liable over a liable account', account: { taxLiable: true }, shipTo: { taxLiable: false }, expected: notLiable('ship-to') },
  { name: 'ship-to liable over an account not liable', account: { taxLiable: false }, shipTo: { taxLiable: true }, expected: SYD_GOODS },
  { name: 'account not liable, ship-to silent', account: { taxLiable: false }, expected: notLiable('account') },
  { name: 'both flags null: liable', account: { taxLiable: null }, shipTo: { taxLiable: null }, expected: SYD_GOODS },
  { name: 'account liable, ship-to silent', account: { taxLiable: true }, expected: SYD_GOODS },
  { name: 'not liable is checked before First Nations', shipTo: { taxLiable: false, isFirstNations: true }, expected: notLiable('ship-to') },
  { name: 'not liable is checked before GST', account: { taxLiable: false, gstBusinessPostingGroup: 'DOMESTIC' }, expected: notLiable('account') },

  // (2) First Nations destination.
  { name: 'First Nations destination: exempt', shipTo: { isFirstNations: true }, expected: FIRST_NATIONS },
  { name: 'First Nations before GST', account: { gstBusinessPostingGroup: 'DOMESTIC' }, shipTo: { isFirstNations: true }, expected: FIRST_NATIONS },
  { name: 'First Nations before a broken chain', account: { taxAreaCode: null }, shipTo: { isFirstNations: true }, expected: FIRST_NATIONS },
  { name: 'isFirstNations false: taxed', shipTo: { isFirstNations: false }, expected: SYD_GOODS },

  // (3) GST matrix when the account has a business posting group.
  { name: 'GST pair in the matrix', account: { gstBusinessPostingGroup: 'DOMESTIC' }, expected: DOMESTIC_GST10 },
  { name: 'GST pair at 0 %: taxed at 0, no reason', account: { gstBusinessPostingGroup: 'DOMESTIC' }, product: { gstProductPostingGroup: 'FREE' }, expected: byGst('0.0000', '0.0000', 'DOMESTIC/FREE') },
  { name: 'GST uses the account group, not another group of the same product group', account: { gstBusinessPostingGroup: 'EXPORT' }, expected: byGst('0.0000', '0.0000', 'EXPORT/GST10') },
  {
    name: 'GST pair missing from the matrix', account: { gstBusinessPostingGroup: 'DOMESTIC' }, product: { gstProductPostingGroup: 'LUXURY' },
    expected: untaxed('no GST posting rate for business posting group "DOMESTIC" and product posting group "LUXURY"'),
  },
  {
    name: 'GST pair whose joined text matches another pair is still missing', account: { gstBusinessPostingGroup: 'A' }, product: { gstProductPostingGroup: 'B/C' },
    expected: untaxed('no GST posting rate for business posting group "A" and product posting group "B/C"'),
  },
  {
    name: 'GST product group missing', account: { gstBusinessPostingGroup: 'DOMESTIC' }, product: { gstProductPostingGroup: null },
    expected: untaxed('product "TEE-1" has no gstProductPostingGroup (the account\'s GST business posting group is "DOMESTIC")'),
  },
  {
    name: 'GST product group blank counts as missing', account: { gstBusinessPostingGroup: 'DOMESTIC' }, product: { gstProductPostingGroup: '  ' },
    expected: untaxed('product "TEE-1" has no gstProductPostingGroup (the account\'s GST business posting group is "DOMESTIC")'),
  },
  { name: 'GST ignores the tax areas, even broken ones', account: { gstBusinessPostingGroup: 'DOMESTIC', taxAreaCode: 'ATLANTIS' }, shipTo: { taxAreaCode: 'GHOST' }, expected: DOMESTIC_GST10 },
  { name: 'blank business posting group: the chain', account: { gstBusinessPostingGroup: ' ' }, expected: SYD_GOODS },

  // (4) The chain; the ship-to's area over the account's.
  { name: 'ship-to area over account area', account: { taxAreaCode: 'SYD' }, shipTo: { taxAreaCode: 'MEL' }, expected: MEL_GOODS },
  { name: 'ship-to area over a missing account area', account: { taxAreaCode: null }, shipTo: { taxAreaCode: 'MEL' }, expected: MEL_GOODS },
  { name: 'blank ship-to area falls back to the account', account: { taxAreaCode: 'MEL' }, shipTo: { taxAreaCode: '   ' }, expected: MEL_GOODS },
  { name: 'empty ship-to area falls back to the account', account: { taxAreaCode: 'MEL' }, shipTo: { taxAreaCode: '' }, expected: MEL_GOODS },
  { name: 'null ship-to area falls back to the account', account: { taxAreaCode: 'MEL' }, shipTo: { taxAreaCode: null }, expected: MEL_GOODS },
  { name: 'a broken ship-to area is not repaired by the account area', account: { taxAreaCode: 'MEL' }, shipTo: { taxAreaCode: 'ATLANTIS' }, expected: untaxed('tax area "ATLANTIS" is not known (never pushed)', 'ATLANTIS') },
  { name: 'no area anywhere', account: { taxAreaCode: null }, expected: untaxed('no tax area on the ship-to or the account') },
  { name: 'blank areas everywhere', account: { taxAreaCode: ' ' }, shipTo: { taxAreaCode: '' }, expected: untaxed('no tax area on the ship-to or the account') },
  { name: 'area not pushed', account: { taxAreaCode: 'ATLANTIS' }, expected: untaxed('tax area "ATLANTIS" is not known (never pushed)', 'ATLANTIS') },
  { name: 'codes match exactly: another case is another area', account: { taxAreaCode: 'syd' }, expected: untaxed('tax area "syd" is not known (never pushed)', 'syd') },
  { name: 'area with no jurisdictions', account: { taxAreaCode: 'EMPTY' }, expected: untaxed('tax area "EMPTY" names no jurisdictions', 'EMPTY') },
  {
    name: 'jurisdiction named by the area but not pushed (the others are not summed)', account: { taxAreaCode: 'GHOST' },
    expected: untaxed('jurisdiction "NOWHERE" is named by tax area "GHOST" but not known (never pushed)', 'GHOST'),
  },
  {
    name: 'several jurisdictions not pushed are all named', account: { taxAreaCode: 'GHOSTS' },
    expected: untaxed('jurisdictions "NOPE1", "NOPE2" are named by tax area "GHOSTS" but not known (never pushed)', 'GHOSTS'),
  },
  { name: 'an unpushed jurisdiction is reported before a missing tax group', account: { taxAreaCode: 'GHOST' }, product: { taxGroupCode: null }, expected: untaxed('jurisdiction "NOWHERE" is named by tax area "GHOST" but not known (never pushed)', 'GHOST') },
  { name: 'product without tax group', product: { taxGroupCode: null }, expected: untaxed('product "TEE-1" has no taxGroupCode', 'SYD') },
  { name: 'product with a blank tax group', product: { taxGroupCode: ' ' }, expected: untaxed('product "TEE-1" has no taxGroupCode', 'SYD') },
  {
    name: 'one jurisdiction has no rate for the group (the other\'s is not taken alone)', product: { taxGroupCode: 'LUXURY' },
    expected: untaxed('jurisdiction "NSW" has no rate for tax group "LUXURY" effective on 2026-07-15', 'SYD'),
  },
  {
    name: 'no jurisdiction has a rate for the group: each is named', product: { taxGroupCode: 'TOYS' },
    expected: untaxed('jurisdiction "CITY" has no rate for tax group "TOYS" effective on 2026-07-15; jurisdiction "NSW" has no rate for tax group "TOYS" effective on 2026-07-15', 'SYD'),
  },
  {
    name: 'a pushed jurisdiction without any rate', account: { taxAreaCode: 'BARE-AREA' },
    expected: untaxed('jurisdiction "BARE" has no rate for tax group "GOODS" effective on 2026-07-15', 'BARE-AREA'),
  },
  {
    name: 'no rate effective yet on the day', account: { taxAreaCode: 'MEL' }, product: { taxGroupCode: 'LATE' },
    expected: untaxed('jurisdiction "VIC" has no rate for tax group "LATE" effective on 2026-07-15 (its first takes effect on 2026-09-01)', 'MEL'),
  },
  {
    name: 'no rate effective yet the day before it starts', account: { taxAreaCode: 'MEL' }, product: { taxGroupCode: 'LATE' }, day: '2026-08-31',
    expected: untaxed('jurisdiction "VIC" has no rate for tax group "LATE" effective on 2026-08-31 (its first takes effect on 2026-09-01)', 'MEL'),
  },

  // Several jurisdictions add up; the rate effective on the day.
  { name: 'several jurisdictions add up: 5 + 2.5 = 7.5 %', expected: SYD_GOODS },
  { name: 'decimal rates add up exactly: 0.1 + 0.2 = 0.3 %', account: { taxAreaCode: 'TENTHS' }, expected: byChain('0.3000', '0.3000', 'TENTHS', component('T1', '0.1000'), component('T2', '0.2000')) },
  {
    name: 'the day before a new rate: the since-always rate', day: '2026-06-30',
    expected: byChain('6.5000', '6.5000', 'SYD', component('CITY', '2.5000'), component('NSW', '4.0000')),
  },
  {
    name: 'a rate effective the day itself applies', day: '2026-07-01',
    expected: byChain('7.5000', '7.5000', 'SYD', component('CITY', '2.5000'), component('NSW', '5.0000', '2026-07-01')),
  },
  {
    name: 'a rate effective tomorrow does not', day: '2026-12-31',
    expected: byChain('7.5000', '7.5000', 'SYD', component('CITY', '2.5000'), component('NSW', '5.0000', '2026-07-01')),
  },
  {
    name: 'the latest of several past rates', day: '2030-01-01',
    expected: byChain('8.5000', '8.5000', 'SYD', component('CITY', '2.5000'), component('NSW', '6.0000', '2027-01-01')),
  },
  {
    name: 'a since-always rate applies on any day', day: '1900-01-01',
    expected: byChain('6.5000', '6.5000', 'SYD', component('CITY', '2.5000'), component('NSW', '4.0000')),
  },
  {
    name: 'a later-dated rate of the group once it starts', account: { taxAreaCode: 'MEL' }, product: { taxGroupCode: 'LATE' }, day: '2026-09-01',
    expected: byChain('3.0000', '3.0000', 'MEL', component('VIC', '3.0000', '2026-09-01')),
  },
  {
    name: 'a 0 % rate is a rate, not a broken link: taxed at 0, no reason', product: { taxGroupCode: 'FOOD' },
    expected: byChain('0.0000', '0.0000', 'SYD', component('CITY', '0.0000'), component('NSW', '0.0000')),
  },
];

/** AUD's minor unit: a line's tax is rounded to cents. */
const CENTS = 2;

function contextOf(c: Pick<Case, 'account' | 'shipTo' | 'day'>, data: TaxData = DATA, minorUnit = CENTS) {
  return { account: account(c.account), shipTo: shipTo(c.shipTo), day: c.day ?? DAY, data, minorUnit };
}

/** What loadTaxData returns for these keys, read from DATA instead of the database. */
function restrict(data: TaxData, keys: TaxDataKeys): TaxData {
  const areas = new Map([...data.areas].filter(([code]) => keys.taxAreaCodes.includes(code)));
  const reached = new Set([...areas.values()].flat());
  const jurisdictions = new Map([...data.jurisdictions].filter(([code]) => reached.has(code)));
  const gst = new Map(GST_PAIRS
    .filter(([business]) => business === keys.gstBusinessPostingGroup)
    .map(([business, group]) => [gstPairKey(business, group), data.gst.get(gstPairKey(business, group)) ?? '']));
  return { areas, jurisdictions, gst };
}

describe('taxLine', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(taxLine(contextOf(c), product(c.product), c.net ?? '100.0000'), c.expected);
    });
  }
});

describe('taxDataKeys', () => {
  for (const c of cases) {
    it(`reach exactly what the resolver reads: ${c.name}`, () => {
      const context = contextOf(c);
      const keys = taxDataKeys(context.account, context.shipTo);
      assert.deepEqual(taxLine(contextOf(c, restrict(DATA, keys)), product(c.product), c.net ?? '100.0000'), c.expected);
    });
  }

  it('asks for nothing when nothing will be looked up, and for one area or one business group otherwise', () => {
    const none = { taxAreaCodes: [], gstBusinessPostingGroup: null };
    assert.deepEqual(taxDataKeys(account({ taxLiable: false }), shipTo()), none);
    assert.deepEqual(taxDataKeys(account(), shipTo({ isFirstNations: true })), none);
    assert.deepEqual(taxDataKeys(account({ taxAreaCode: ' ' }), shipTo()), none);
    assert.deepEqual(taxDataKeys(account({ gstBusinessPostingGroup: 'DOMESTIC' }), shipTo({ taxAreaCode: 'MEL' })), { taxAreaCodes: [], gstBusinessPostingGroup: 'DOMESTIC' });
    assert.deepEqual(taxDataKeys(account({ taxAreaCode: 'SYD' }), shipTo({ taxAreaCode: 'MEL' })), { taxAreaCodes: ['MEL'], gstBusinessPostingGroup: null });
    assert.deepEqual(taxDataKeys(account({ taxAreaCode: 'SYD' }), shipTo({ taxAreaCode: '' })), { taxAreaCodes: ['SYD'], gstBusinessPostingGroup: null });
  });
});

describe('tax amount: line amount × rate / 100, rounded once to the currency\'s minor unit, half away from zero', () => {
  // [line amount, area, minor unit, expected amount, why]; MEL is 10 %, SYD 5 % + 2.5 %.
  const rounding: Array<[string, string, number, string, string]> = [
    ['0.05', 'MEL', 2, '0.0100', '0.005 is a half: up'],
    ['0.04', 'MEL', 2, '0.0000', '0.004: down'],
    ['1.45', 'MEL', 2, '0.1500', '0.145 is a half: up (a double holds 0.145 as 0.14499…, which would give 0.14)'],
    ['0.25', 'MEL', 2, '0.0300', '0.025 is a half: up, not to even'],
    ['-0.05', 'MEL', 2, '-0.0100', 'a negative half: away from zero'],
    ['-0.15', 'MEL', 2, '-0.0200', 'a negative half: away from zero'],
    ['-0.04', 'MEL', 2, '0.0000', 'a negative amount rounding to nothing is 0, not -0'],
    ['0.07', 'SYD', 2, '0.0100', '0.00525: the rates added up first, then rounded once (each jurisdiction rounded first would give 0.00 + 0.00)'],
    ['0.02', 'SYD', 2, '0.0000', '0.0015'],
    ['0.20', 'SYD', 2, '0.0200', '0.015 is a half: up'],
    ['65.26', 'MEL', 2, '6.5300', '6.526: the tax of the line 3 × 21.7525, on its rounded amount'],
    ['1.2345', 'SYD', 2, '0.0900', '0.0925875: whatever places the amount has, the tax has cents'],
    ['0', 'MEL', 2, '0.0000', 'nothing to tax'],
    ['100', 'MEL', 2, '10.0000', 'a line amount without places'],
    ['123456789012345.67', 'SYD', 2, '9259259175925.9300', '9259259175925.92525: beyond what a double holds exactly'],
    ['1234', 'MEL', 0, '123.0000', 'JPY, no minor unit: 123.4'],
    ['1235', 'MEL', 0, '124.0000', 'JPY: 123.5 is a half: up'],
    ['12.345', 'MEL', 3, '1.2350', 'KWD, 3 places: 1.2345 is a half: up'],
    ['0.0005', 'MEL', 4, '0.0001', 'CLF, 4 places: 0.00005 is a half: up'],
  ];
  for (const [net, area, minorUnit, expected, why] of rounding) {
    it(`${net} in ${area} at ${minorUnit} places → ${expected} (${why})`, () => {
      assert.equal(taxLine(contextOf({ account: { taxAreaCode: area } }, DATA, minorUnit), product(), net).amount, expected);
    });
  }

  it('adds decimal rates exactly: 0.1 % + 0.2 % of 5.00 is 0.015, a half at the cent, and rounds up', () => {
    const line = taxLine(contextOf({ account: { taxAreaCode: 'TENTHS' } }), product(), '5.00');
    assert.deepEqual([line.ratePercent, line.amount], ['0.3000', '0.0200']);
  });

  it('GST amounts round the same way', () => {
    const line = taxLine(contextOf({ account: { gstBusinessPostingGroup: 'DOMESTIC' } }), product(), '0.15');
    assert.deepEqual([line.basis, line.amount], ['Gst', '0.0200']);
  });

  it('normalises rates sent with other places to 4 places', () => {
    const data: TaxData = { ...DATA, jurisdictions: new Map([...DATA.jurisdictions, ['VIC', [rate('GOODS', '10')]]]) };
    assert.deepEqual(taxLine(contextOf({ account: { taxAreaCode: 'MEL' } }, data), product(), '100'), byChain('10.0000', '10.0000', 'MEL', component('VIC', '10.0000')));
  });
});

describe('taxResolver', () => {
  it('gives each line of a mixed basket what taxLine gives it alone', () => {
    const basket: Array<[Partial<TaxProduct>, string]> = [
      [{ sku: 'A', taxGroupCode: 'GOODS' }, '100.0000'],
      [{ sku: 'B', taxGroupCode: 'LUXURY' }, '50.0000'],
      [{ sku: 'C', taxGroupCode: null }, '10.0000'],
      [{ sku: 'D', taxGroupCode: 'GOODS' }, '0.0007'],
      [{ sku: 'E', taxGroupCode: 'LUXURY' }, '1.0000'],
      [{ sku: 'F', taxGroupCode: ' ' }, '3.0000'],
    ];
    for (const base of [{}, { account: { gstBusinessPostingGroup: 'DOMESTIC' } }, { day: '2026-06-30' }]) {
      const resolve = taxResolver(contextOf(base));
      for (const [p, net] of basket) {
        const withGst = { ...p, gstProductPostingGroup: p.taxGroupCode === 'GOODS' ? 'GST10' : p.taxGroupCode };
        assert.deepEqual(resolve(product(withGst), net), taxLine(contextOf(base), product(withGst), net), JSON.stringify([base, p]));
      }
    }
  });

  it('names each product in its own reason, though the outcome of a group is remembered', () => {
    const resolve = taxResolver(contextOf({}));
    assert.equal(resolve(product({ sku: 'X', taxGroupCode: null }), '1').reason, 'product "X" has no taxGroupCode');
    assert.equal(resolve(product({ sku: 'Y', taxGroupCode: null }), '1').reason, 'product "Y" has no taxGroupCode');
  });

  it('hands each line its own components: editing one line cannot change another', () => {
    const resolve = taxResolver(contextOf({}));
    const first = resolve(product(), '100');
    first.components.push(component('EXTRA', '1.0000'));
    (first.components[0] as TaxComponent).ratePercent = '99.0000';
    assert.deepEqual(resolve(product(), '100'), SYD_GOODS);
  });

  it('does not depend on the order rates are listed in', () => {
    const reversed: TaxData = { ...DATA, jurisdictions: new Map([...DATA.jurisdictions].map(([code, rates]) => [code, [...rates].reverse()])) };
    for (const day of ['1900-01-01', '2026-06-30', '2026-07-01', '2026-12-31', '2027-01-01']) {
      assert.deepEqual(taxLine(contextOf({ day }, reversed), product(), '100'), taxLine(contextOf({ day }), product(), '100'), day);
    }
  });

  it('refuses a day that is not YYYY-MM-DD: a wrong format would compare wrongly against effective dates', () => {
    for (const day of ['2026-7-1', '2026-07-01T00:00:00Z', '', '01/07/2026']) {
      assert.throws(() => taxResolver(contextOf({ day })), /tax day must be a date as YYYY-MM-DD/, day);
    }
  });

  it('refuses a net amount that is not a decimal, whatever the basis', () => {
    assert.throws(() => taxLine(contextOf({}), product(), 'ten'));
    assert.throws(() => taxLine(contextOf({ account: { taxLiable: false } }), product(), 'ten'));
  });
});

describe('gstPairKey', () => {
  it('keeps apart two pairs whose "business/product" text is the same', () => {
    assert.notEqual(gstPairKey('A/B', 'C'), gstPairKey('A', 'B/C'));
    assert.equal(gstPairKey('A', 'B'), gstPairKey('A', 'B'));
  });
});
