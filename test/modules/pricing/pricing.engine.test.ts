import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../../src/platform/db/pool.js';
import {
  indexRules, netUnitPrice, priceRuleFromRow, ruleApplies, stableWindow,
  type NetPrice, type PriceRule, type PriceRuleRow, type PricingAccount, type PricingProduct,
} from '../../../src/modules/pricing/pricing.engine.js';
import { loadAllRules } from '../../../src/modules/pricing/pricing.repository.js';
import { PriceRuleCache, type RuleSet } from '../../../src/modules/pricing/rule-cache.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

const AT = new Date('2026-06-15T00:00:00Z');
const BEFORE = new Date('2026-06-14T23:59:59.999Z');
const AFTER = new Date('2026-06-15T00:00:00.001Z');

const PRODUCT: PricingProduct = { sku: 'SKU-1', masterProductNo: 'M-1', itemDiscountGroup: 'IDG-1', unitPrice: '52' };
const ACCOUNT: PricingAccount = { accountNo: 'C001', priceMode: null, priceGroup: 'PG1', discGroup: 'DG1' };

/** An all-customers Price rule on SKU-1 with no dates, no break and no say on line discounts. */
function rule(ruleId: string, extra: Partial<PriceRule> = {}): PriceRule {
  return {
    ruleId, sourceType: 'AllCustomers', sourceCode: null, sku: 'SKU-1', masterProductNo: null, itemDiscountGroup: null,
    amountType: 'Price', minQuantity: null, unitPrice: '10', lineDiscountPercent: null, allowLineDiscount: null,
    allowInvoiceDiscount: null, startDate: null, endDate: null, ...extra,
  };
}
const price = (ruleId: string, unitPrice: string, extra: Partial<PriceRule> = {}) => rule(ruleId, { unitPrice, ...extra });
const discount = (ruleId: string, percent: string, extra: Partial<PriceRule> = {}) =>
  rule(ruleId, { amountType: 'Discount', unitPrice: null, lineDiscountPercent: percent, ...extra });
const customer = { sourceType: 'Customer', sourceCode: 'C001' } as const;
const priceGroup = { sourceType: 'CustomerPriceGroup', sourceCode: 'PG1' } as const;
const discGroup = { sourceType: 'CustomerDiscountGroup', sourceCode: 'DG1' } as const;
const byMaster = { sku: null, masterProductNo: 'M-1' } as const;
const byItemGroup = { sku: null, itemDiscountGroup: 'IDG-1' } as const;

/** What a row expects; listPrice defaults to the product's list price. */
interface Expected { unitPrice: string | null; basis: NetPrice['basis']; priceRule?: string; discountRule?: string; discountPercent?: string; listPrice?: string | null }

interface Case {
  name: string;
  rules: PriceRule[];
  expect: Expected;
  product?: Partial<PricingProduct>;
  account?: Partial<PricingAccount>;
  at?: Date;
  quantity?: number;
}

const CASES: Case[] = [
  { name: 'no rules: the list price', rules: [], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a customer price rule is used over the list price', rules: [price('R-CUST', '40', customer)], expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-CUST' } },
  { name: 'a price-group rule applies to the account of that priceGroup', rules: [price('R-PG', '41', priceGroup)], expect: { unitPrice: '41.0000', basis: 'rule', priceRule: 'R-PG' } },
  { name: 'a discount-group rule applies to the account of that discGroup', rules: [price('R-DG', '42', discGroup)], expect: { unitPrice: '42.0000', basis: 'rule', priceRule: 'R-DG' } },
  { name: 'an all-customers rule applies to everyone', rules: [price('R-ALL', '43')], expect: { unitPrice: '43.0000', basis: 'rule', priceRule: 'R-ALL' } },
  { name: 'a master-product target matches the product of that master', rules: [price('R-M', '44', byMaster)], expect: { unitPrice: '44.0000', basis: 'rule', priceRule: 'R-M' } },
  {
    name: 'a product without a master product number is its own master',
    product: { masterProductNo: null }, rules: [price('R-M', '44', { sku: null, masterProductNo: 'SKU-1' })],
    expect: { unitPrice: '44.0000', basis: 'rule', priceRule: 'R-M' },
  },
  {
    name: 'a blank master product number counts as none: the sku is the master',
    product: { masterProductNo: ' ' }, rules: [price('R-M', '44', { sku: null, masterProductNo: 'SKU-1' })],
    expect: { unitPrice: '44.0000', basis: 'rule', priceRule: 'R-M' },
  },
  {
    name: 'a product with its own master is not matched by a master rule naming its sku',
    rules: [price('R-M', '44', { sku: null, masterProductNo: 'SKU-1' })], expect: { unitPrice: '52.0000', basis: 'list' },
  },
  { name: 'an item-discount-group target matches the product of that group', rules: [price('R-IDG', '45', byItemGroup)], expect: { unitPrice: '45.0000', basis: 'rule', priceRule: 'R-IDG' } },
  {
    name: 'a product without an item discount group matches no group rule',
    product: { itemDiscountGroup: null }, rules: [price('R-IDG', '45', byItemGroup)], expect: { unitPrice: '52.0000', basis: 'list' },
  },
  { name: 'a rule for another product is ignored', rules: [price('R-OTHER', '1', { sku: 'SKU-2' })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a quantity break above 1 is ignored at quantity 1', rules: [price('R-12', '30', { minQuantity: 12 })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a quantity break applies at its quantity', quantity: 12, rules: [price('R-12', '30', { minQuantity: 12 })], expect: { unitPrice: '30.0000', basis: 'rule', priceRule: 'R-12' } },
  { name: 'a quantity break applies above its quantity', quantity: 100, rules: [price('R-12', '30', { minQuantity: 12 })], expect: { unitPrice: '30.0000', basis: 'rule', priceRule: 'R-12' } },
  { name: 'minQuantity 0 applies at quantity 1', rules: [price('R-0', '30', { minQuantity: 0 })], expect: { unitPrice: '30.0000', basis: 'rule', priceRule: 'R-0' } },
  { name: 'an expired rule is ignored', rules: [price('R-OLD', '30', { endDate: BEFORE })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a future rule is ignored', rules: [price('R-NEW', '30', { startDate: AFTER })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'the start date is inclusive', rules: [price('R-START', '30', { startDate: AT, endDate: AFTER })], expect: { unitPrice: '30.0000', basis: 'rule', priceRule: 'R-START' } },
  { name: 'the end date is inclusive', rules: [price('R-END', '30', { startDate: BEFORE, endDate: AT })], expect: { unitPrice: '30.0000', basis: 'rule', priceRule: 'R-END' } },
  { name: 'a one-day window on the instant applies', rules: [price('R-DAY', '30', { startDate: AT, endDate: AT })], expect: { unitPrice: '30.0000', basis: 'rule', priceRule: 'R-DAY' } },
  {
    name: 'the lowest applicable price wins across sources and targets',
    rules: [price('R-CUST', '40', customer), price('R-PG-IDG', '38', { ...priceGroup, ...byItemGroup }), price('R-ALL-M', '35', byMaster), price('R-DG', '39', discGroup)],
    expect: { unitPrice: '35.0000', basis: 'rule', priceRule: 'R-ALL-M' },
  },
  { name: 'a price rule above the list price still wins (rules are not capped by the list)', rules: [price('R-HIGH', '60')], expect: { unitPrice: '60.0000', basis: 'rule', priceRule: 'R-HIGH' } },
  { name: 'a Price rule without unitPrice is ignored', rules: [price('R-NULL', '1', { unitPrice: null })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a Discount rule carrying a unitPrice is not a price', rules: [discount('R-D', '10', { unitPrice: '1', allowLineDiscount: true })], expect: { unitPrice: '46.8000', basis: 'list', discountRule: 'R-D', discountPercent: '10.0000' } },
  { name: 'a Price rule carrying a lineDiscountPercent is not a discount', rules: [price('R-P', '40', { lineDiscountPercent: '50', allowLineDiscount: true })], expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-P' } },
  {
    name: 'a discount applies to a price rule with allowLineDiscount true',
    rules: [price('R-P', '40', { allowLineDiscount: true }), discount('R-D', '10')],
    expect: { unitPrice: '36.0000', basis: 'rule', priceRule: 'R-P', discountRule: 'R-D', discountPercent: '10.0000' },
  },
  { name: 'no discount on a price rule with allowLineDiscount false', rules: [price('R-P', '40', { allowLineDiscount: false }), discount('R-D', '10')], expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-P' } },
  { name: 'no discount on a price rule with allowLineDiscount null', rules: [price('R-P', '40'), discount('R-D', '10')], expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-P' } },
  { name: 'the list price always allows a discount', rules: [discount('R-D', '10')], expect: { unitPrice: '46.8000', basis: 'list', discountRule: 'R-D', discountPercent: '10.0000' } },
  {
    name: 'the highest applicable discount wins',
    rules: [discount('R-D5', '5', customer), discount('R-D125', '12.5', discGroup), discount('R-D10', '10', byMaster), discount('R-D90', '90', { minQuantity: 2 })],
    expect: { unitPrice: '45.5000', basis: 'list', discountRule: 'R-D125', discountPercent: '12.5000' },
  },
  { name: 'a Discount rule without lineDiscountPercent is ignored', rules: [discount('R-D', '10', { lineDiscountPercent: null })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a 100 % discount makes the price zero', rules: [discount('R-D', '100')], expect: { unitPrice: '0.0000', basis: 'list', discountRule: 'R-D', discountPercent: '100.0000' } },
  { name: 'a 0 % discount is applied and reported', rules: [discount('R-D', '0')], expect: { unitPrice: '52.0000', basis: 'list', discountRule: 'R-D', discountPercent: '0.0000' } },
  {
    name: 'ListOnly: no rules at all, the list price without discount',
    account: { priceMode: 'ListOnly' }, rules: [price('R-CUST', '40', { ...customer, allowLineDiscount: true }), discount('R-D', '10', customer)],
    expect: { unitPrice: '52.0000', basis: 'list' },
  },
  {
    name: 'ContractOnly ignores group and all-customers rules and uses the customer rule',
    account: { priceMode: 'ContractOnly' },
    rules: [price('R-CUST', '45', customer), price('R-ALL', '30'), price('R-PG', '31', priceGroup), price('R-DG', '32', discGroup)],
    expect: { unitPrice: '45.0000', basis: 'rule', priceRule: 'R-CUST' },
  },
  {
    name: 'ContractOnly falls back to the list price, with the customer discount only',
    account: { priceMode: 'ContractOnly' },
    rules: [price('R-ALL', '30'), discount('R-D-ALL', '50'), discount('R-D-PG', '40', priceGroup), discount('R-D-CUST', '10', customer)],
    expect: { unitPrice: '46.8000', basis: 'list', discountRule: 'R-D-CUST', discountPercent: '10.0000' },
  },
  {
    name: 'ContractOnly with only group rules: the list price',
    account: { priceMode: 'ContractOnly' }, rules: [price('R-PG', '31', priceGroup), discount('R-D-DG', '10', discGroup)],
    expect: { unitPrice: '52.0000', basis: 'list' },
  },
  {
    name: 'Standard spelled out behaves as a missing priceMode',
    account: { priceMode: 'Standard' }, rules: [price('R-PG', '31', priceGroup)], expect: { unitPrice: '31.0000', basis: 'rule', priceRule: 'R-PG' },
  },
  { name: 'no rule and no list price: no price', product: { unitPrice: null }, rules: [], expect: { unitPrice: null, basis: 'none', listPrice: null } },
  {
    name: 'a discount alone does not make a price',
    product: { unitPrice: null }, rules: [discount('R-D', '10')], expect: { unitPrice: null, basis: 'none', listPrice: null },
  },
  {
    name: 'a rule prices a product without a list price',
    product: { unitPrice: null }, rules: [price('R-P', '40')], expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-P', listPrice: null },
  },
  { name: 'a 4-place price is returned exactly', rules: [price('R-P', '21.7525')], expect: { unitPrice: '21.7525', basis: 'rule', priceRule: 'R-P' } },
  {
    name: 'a 4-place list price is returned exactly',
    product: { unitPrice: '21.7525' }, rules: [], expect: { unitPrice: '21.7525', basis: 'list', listPrice: '21.7525' },
  },
  {
    name: 'a discount giving more than 4 places is rounded to 4',
    rules: [price('R-P', '21.7525', { allowLineDiscount: true }), discount('R-D', '2.5')],
    // 21.7525 × 0.975 = 21.2086875
    expect: { unitPrice: '21.2087', basis: 'rule', priceRule: 'R-P', discountRule: 'R-D', discountPercent: '2.5000' },
  },
  {
    name: 'an exact half is rounded up, not to even',
    rules: [price('R-P', '10.0005', { allowLineDiscount: true }), discount('R-D', '50')],
    // 10.0005 × 0.5 = 5.00025; half-even would give 5.0002
    expect: { unitPrice: '5.0003', basis: 'rule', priceRule: 'R-P', discountRule: 'R-D', discountPercent: '50.0000' },
  },
  {
    name: 'decimals are exact where binary floats are not',
    product: { unitPrice: '1.0005' }, rules: [discount('R-D', '50')],
    // 1.0005 × 0.5 = 0.50025 exactly; as a double it is 0.50024999…, which would round to 0.5002
    expect: { unitPrice: '0.5003', basis: 'list', listPrice: '1.0005', discountRule: 'R-D', discountPercent: '50.0000' },
  },
  { name: "a rule for another customer is ignored", rules: [price('R-C999', '1', { sourceType: 'Customer', sourceCode: 'C999' })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a rule for another price group is ignored', rules: [price('R-PG9', '1', { sourceType: 'CustomerPriceGroup', sourceCode: 'PG9' })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a rule for another discount group is ignored', rules: [price('R-DG9', '1', { sourceType: 'CustomerDiscountGroup', sourceCode: 'DG9' })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'a price-group code is not a discount-group code', rules: [price('R-X', '1', { sourceType: 'CustomerDiscountGroup', sourceCode: 'PG1' })], expect: { unitPrice: '52.0000', basis: 'list' } },
  { name: 'codes are case-sensitive', rules: [price('R-c', '1', { sourceType: 'Customer', sourceCode: 'c001' }), price('R-s', '1', { sku: 'sku-1' })], expect: { unitPrice: '52.0000', basis: 'list' } },
  {
    name: 'null account groups never match, not even a rule without a sourceCode',
    account: { priceGroup: null, discGroup: null },
    rules: [price('R-PG', '1', { sourceType: 'CustomerPriceGroup', sourceCode: null }), price('R-DG', '1', { sourceType: 'CustomerDiscountGroup', sourceCode: null })],
    expect: { unitPrice: '52.0000', basis: 'list' },
  },
  {
    name: 'blank account groups never match',
    account: { priceGroup: '', discGroup: ' ' },
    rules: [price('R-PG', '1', { sourceType: 'CustomerPriceGroup', sourceCode: '' }), price('R-DG', '1', { sourceType: 'CustomerDiscountGroup', sourceCode: ' ' })],
    expect: { unitPrice: '52.0000', basis: 'list' },
  },
  {
    name: 'a tie on price goes to the most specific target first',
    rules: [price('R-A-CUST-IDG', '40', { ...customer, ...byItemGroup }), price('R-B-CUST-M', '40', { ...customer, ...byMaster }), price('R-C-ALL-SKU', '40')],
    expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-C-ALL-SKU' },
  },
  {
    name: 'a tie on price and target goes to the most specific source',
    rules: [price('R-A-ALL', '40'), price('R-B-DG', '40', discGroup), price('R-C-PG', '40', priceGroup), price('R-D-CUST', '40', customer)],
    expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-D-CUST' },
  },
  {
    name: 'a tie on price group over discount group over all customers',
    rules: [price('R-A-ALL', '40'), price('R-B-DG', '40', discGroup), price('R-C-PG', '40', priceGroup)],
    expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-C-PG' },
  },
  {
    name: 'a full tie goes to the smallest ruleId; equal amounts compare as numbers ("40" = "40.0000")',
    rules: [price('R-2', '40.0000'), price('R-10', '40'), price('R-1', '40.00')],
    expect: { unitPrice: '40.0000', basis: 'rule', priceRule: 'R-1' },
  },
  {
    name: 'a tie on the discount percent goes to the most specific rule',
    rules: [discount('R-A-ALL', '10'), discount('R-B-CUST', '10.0', customer), discount('R-C-CUST-M', '10', { ...customer, ...byMaster })],
    expect: { unitPrice: '46.8000', basis: 'list', discountRule: 'R-B-CUST', discountPercent: '10.0000' },
  },
];

function outcome(c: Case, rules: readonly PriceRule[]) {
  const result = netUnitPrice({
    product: { ...PRODUCT, ...c.product }, account: { ...ACCOUNT, ...c.account }, rules, at: c.at ?? AT, quantity: c.quantity ?? 1,
  });
  return {
    unitPrice: result.unitPrice,
    basis: result.basis,
    listPrice: result.listPrice,
    priceRule: result.priceRule?.ruleId,
    discountRule: result.discountRule?.ruleId,
    discountPercent: result.discountPercent ?? undefined,
  };
}

describe('netUnitPrice (decisions §4, one row per rule)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const expected = { listPrice: '52.0000', ...c.expect };
      assert.deepEqual(outcome(c, c.rules), {
        unitPrice: expected.unitPrice, basis: expected.basis, listPrice: expected.listPrice,
        priceRule: expected.priceRule, discountRule: expected.discountRule, discountPercent: expected.discountPercent,
      });
      // The explanation never depends on the order the rules arrive in.
      assert.deepEqual(outcome(c, [...c.rules].reverse()), outcome(c, c.rules));
      // The index leaves out only rules that cannot apply: the same price and explanation.
      const candidates = indexRules(c.rules).forAccount({ ...ACCOUNT, ...c.account })({ ...PRODUCT, ...c.product });
      assert.deepEqual(outcome(c, candidates), outcome(c, c.rules));
    });
  }

  it('returns the chosen rules themselves, so a caller can explain the price', () => {
    const p = price('R-P', '40', { allowLineDiscount: true });
    const d = discount('R-D', '10');
    const result = netUnitPrice({ product: PRODUCT, account: ACCOUNT, rules: [p, d], at: AT, quantity: 1 });
    assert.deepEqual(result, {
      unitPrice: '36.0000', listPrice: '52.0000', basis: 'rule', priceRule: p, discountRule: d, discountPercent: '10.0000',
    });
  });
});

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('indexRules', () => {
  it('hands the engine every rule that applies and nothing that changes the outcome (2,000 random cases)', () => {
    const random = seeded(20261123);
    const one = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const codes = ['C001', 'C002', 'PG1', 'PG2', 'DG1', 'DG2', ' ', ''];
    const randomRule = (i: number): PriceRule => {
      const targetKind = one(['sku', 'master', 'group', 'group-blank'] as const);
      const sourceType = one(['AllCustomers', 'Customer', 'CustomerPriceGroup', 'CustomerDiscountGroup'] as const);
      const isPrice = random() < 0.6;
      return rule(`R${String(i).padStart(3, '0')}`, {
        sku: targetKind === 'sku' ? one(['S1', 'S2', 'S3']) : null,
        masterProductNo: targetKind === 'master' ? one(['M1', 'M2', 'S1', 'S3']) : null,
        itemDiscountGroup: targetKind === 'group' ? one(['G1', 'G2']) : targetKind === 'group-blank' ? '' : null,
        sourceType,
        sourceCode: sourceType === 'AllCustomers' ? one([null, 'C001']) : one([...codes, null]),
        amountType: isPrice ? 'Price' : 'Discount',
        unitPrice: isPrice ? String(1 + Math.floor(random() * 60)) : null,
        lineDiscountPercent: isPrice ? null : String(Math.floor(random() * 40)),
        allowLineDiscount: one([true, false, null]),
        minQuantity: one([null, 1, 5]),
        startDate: one([null, BEFORE, AFTER]),
        endDate: one([null, BEFORE, AFTER]),
      });
    };
    for (let n = 0; n < 2000; n += 1) {
      const rules = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, i) => randomRule(i));
      const product: PricingProduct = {
        sku: one(['S1', 'S2', 'S3']), masterProductNo: one(['M1', 'M2', null, '', ' ']), itemDiscountGroup: one(['G1', 'G2', null, '', ' ']), unitPrice: one(['52', null]),
      };
      const account: PricingAccount = {
        accountNo: one(['C001', 'C002']), priceMode: one([null, 'Standard', 'ContractOnly', 'ListOnly']), priceGroup: one(['PG1', 'PG2', null, ' ']), discGroup: one(['DG1', 'DG2', null, '']),
      };
      const quantity = one([1, 5]);
      const price = (list: readonly PriceRule[]) => netUnitPrice({ product, account, rules: list, at: AT, quantity });
      const candidates = indexRules(rules).forAccount(account)(product);
      assert.deepEqual(price(candidates), price(rules), `case ${n}: ${JSON.stringify({ rules, product, account, quantity })}`);
      for (const r of rules) {
        if (ruleApplies(r, product, account, AT, quantity)) assert.ok(candidates.includes(r), `case ${n}: ${r.ruleId} applies but was left out`);
      }
    }
  });

  it('prices (pricer) and explains (explainer) like netUnitPrice over every rule, with the window of the candidates, products of a group sharing one pricer (2,000 random cases)', () => {
    const random = seeded(20261125);
    const one = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const day = 86_400_000;
    const dates = [null, BEFORE, AFTER, new Date(AT.getTime() - 3 * day), new Date(AT.getTime() + 5 * day)];
    const randomRule = (i: number): PriceRule => {
      const targetKind = one(['sku', 'master', 'group', 'group', 'group-blank'] as const);
      const sourceType = one(['AllCustomers', 'Customer', 'CustomerPriceGroup', 'CustomerDiscountGroup'] as const);
      const isPrice = random() < 0.5;
      return rule(`R${String(i).padStart(3, '0')}`, {
        sku: targetKind === 'sku' ? one(['S1', 'S2', 'S3']) : null,
        masterProductNo: targetKind === 'master' ? one(['M1', 'M2', 'S1']) : null,
        itemDiscountGroup: targetKind === 'group' ? one(['G1', 'G2']) : targetKind === 'group-blank' ? '' : null,
        sourceType,
        sourceCode: sourceType === 'AllCustomers' ? null : one(['C001', 'C002', 'PG1', 'DG1', null]),
        amountType: isPrice ? 'Price' : 'Discount',
        // Few distinct amounts, so ties between rules of different targets are common.
        unitPrice: isPrice ? one(['30', '30.0000', '41.5', '45.12345', '52']) : null,
        lineDiscountPercent: isPrice ? null : one(['5', '10', '10.0000', '12.5']),
        allowLineDiscount: one([true, false, null]),
        minQuantity: one([null, 1, 5]),
        startDate: one(dates),
        endDate: one(dates),
      });
    };
    for (let n = 0; n < 2000; n += 1) {
      const rules = Array.from({ length: 1 + Math.floor(random() * 16) }, (_, i) => randomRule(i));
      const account: PricingAccount = {
        accountNo: one(['C001', 'C002']), priceMode: one([null, 'Standard', 'ContractOnly', 'ListOnly']), priceGroup: one(['PG1', null]), discGroup: one(['DG1', null, '']),
      };
      const quantity = one([1, 5]);
      const index = indexRules(rules);
      const price = index.pricer(account, AT, quantity);
      const explain = index.explainer(account, AT, quantity);
      for (let k = 0; k < 4; k += 1) {
        const product: PricingProduct = {
          sku: one(['S1', 'S2', 'S3']), masterProductNo: one(['M1', 'M2', null]), itemDiscountGroup: one(['G1', 'G2', null, '']), unitPrice: one(['52', '30', null]),
        };
        const context = `case ${n}.${k}: ${JSON.stringify({ rules, product, account, quantity })}`;
        const priced = price(product);
        const expected = netUnitPrice({ product, account, rules, at: AT, quantity });
        assert.equal(priced.unitPrice, expected.unitPrice, context);
        const explained = explain(product);
        assert.deepEqual(explained.price, expected, context);
        assert.deepEqual(priced.window, stableWindow(index.forAccount(account)(product), AT), context);
        assert.deepEqual(explained.window, priced.window, context);
      }
    }
  });
});

describe('stableWindow', () => {
  const window = (rules: PriceRule[]) => stableWindow(rules, AT);
  const ms = (d: Date) => d.getTime();

  it('is bounded by the nearest start or end (plus 1 ms) on each side of the instant, open when there is none', () => {
    assert.deepEqual(window([]), { from: -Infinity, until: Infinity });
    assert.deepEqual(window([rule('R')]), { from: -Infinity, until: Infinity });
    assert.deepEqual(window([rule('R', { startDate: AFTER })]), { from: -Infinity, until: ms(AFTER) });
    assert.deepEqual(window([rule('R', { startDate: AT })]), { from: ms(AT), until: Infinity }, 'a rule starting now is in effect now');
    assert.deepEqual(window([rule('R', { endDate: AT })]), { from: -Infinity, until: ms(AT) + 1 }, 'a rule ending now is still in effect now');
    assert.deepEqual(window([rule('R', { endDate: BEFORE })]), { from: ms(BEFORE) + 1, until: Infinity });
    assert.deepEqual(window([rule('A', { startDate: BEFORE, endDate: AFTER }), rule('B', { startDate: new Date('2026-07-01T00:00:00Z') })]), {
      from: ms(BEFORE), until: ms(AFTER) + 1,
    });
  });

  it('holds the price of the same inputs at every instant inside it, and no rule changes effect inside it (500 random cases)', () => {
    const random = seeded(20261124);
    const day = 86_400_000;
    const instant = () => new Date(ms(AT) + Math.floor((random() - 0.5) * 10) * day + Math.floor(random() * 3) - 1);
    const account: PricingAccount = { accountNo: 'C001', priceMode: null, priceGroup: 'PG1', discGroup: 'DG1' };
    const product: PricingProduct = { sku: 'SKU-1', masterProductNo: null, itemDiscountGroup: null, unitPrice: '52' };
    for (let n = 0; n < 500; n += 1) {
      const rules = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => {
        // A window as ingestion accepts it: a start, an end, both (in order) or neither.
        const [startDate, endDate] = [random() < 0.5 ? instant() : null, random() < 0.5 ? instant() : null]
          .sort((x, y) => (x !== null && y !== null ? x.getTime() - y.getTime() : 0));
        return rule(`R${i}`, {
          amountType: random() < 0.6 ? 'Price' : 'Discount',
          unitPrice: String(10 + Math.floor(random() * 40)),
          lineDiscountPercent: String(Math.floor(random() * 30)),
          allowLineDiscount: random() < 0.5,
          startDate: startDate ?? null,
          endDate: endDate ?? null,
        });
      });
      const at = instant();
      const { from, until } = stableWindow(rules, at);
      const price = (when: Date) => netUnitPrice({ product, account, rules, at: when, quantity: 1 }).unitPrice;
      const inside = [from, until - 1, at.getTime() + Math.floor((random() - 0.5) * 4 * day)].filter((t) => Number.isFinite(t) && t >= from && t < until);
      for (const t of inside) {
        assert.equal(price(new Date(t)), price(at), `case ${n} at ${t}: ${JSON.stringify(rules)}`);
        for (const r of rules) assert.equal(ruleApplies(r, product, account, new Date(t), 1), ruleApplies(r, product, account, at, 1), `case ${n}: ${r.ruleId}`);
      }
      // Just outside, some rule has changed effect: the window is no longer than it must be.
      for (const t of [from - 1, until].filter(Number.isFinite)) {
        assert.ok(rules.some((r) => ruleApplies(r, product, account, new Date(t), 1) !== ruleApplies(r, product, account, at, 1)), `case ${n} at ${t}`);
      }
    }
  });
});

describe('ruleApplies', () => {
  const rows: Array<[string, PriceRule, boolean, Partial<{ product: PricingProduct; account: PricingAccount; at: Date; quantity: number }>?]> = [
    ['all customers on the sku', rule('R'), true],
    ['Customer = accountNo', rule('R', customer), true],
    ['Customer of another account', rule('R', { sourceType: 'Customer', sourceCode: 'C002' }), false],
    ['price group of the account', rule('R', priceGroup), true],
    ['discount group of the account', rule('R', discGroup), true],
    ['master product target', rule('R', byMaster), true],
    ['item discount group target', rule('R', byItemGroup), true],
    ['a rule with no target matches nothing', rule('R', { sku: null }), false],
    ['quantity below the break', rule('R', { minQuantity: 5 }), false, { quantity: 4 }],
    ['quantity at the break', rule('R', { minQuantity: 5 }), true, { quantity: 5 }],
    ['before the start', rule('R', { startDate: AT }), false, { at: BEFORE }],
    ['at the start', rule('R', { startDate: AT }), true, { at: AT }],
    ['at the end', rule('R', { endDate: AT }), true, { at: AT }],
    ['after the end', rule('R', { endDate: AT }), false, { at: AFTER }],
    // priceMode narrows rules in netUnitPrice, not here: applicability is about the rule itself.
    ['an all-customers rule for a ContractOnly account', rule('R'), true, { account: { ...ACCOUNT, priceMode: 'ContractOnly' } }],
  ];
  for (const [name, r, applies, context = {}] of rows) {
    it(`${name}: ${applies ? 'applies' : 'does not apply'}`, () => {
      assert.equal(ruleApplies(r, context.product ?? PRODUCT, context.account ?? ACCOUNT, context.at ?? AT, context.quantity ?? 1), applies);
    });
  }
});

describe('priceRuleFromRow', () => {
  const row: PriceRuleRow = {
    rule_id: 'R-1', source_type: 'CustomerPriceGroup', source_code: 'PG1', master_product_no: null, sku: 'SKU-1',
    item_discount_group: null, amount_type: 'Price', min_quantity: 12, unit_price: '21.7525', line_discount_percent: '2.5000',
    allow_line_discount: true, allow_invoice_discount: false, start_date: AT, end_date: null,
  };

  it('maps every column to its interface name, keeping decimals as text', () => {
    assert.deepEqual(priceRuleFromRow(row), {
      ruleId: 'R-1', sourceType: 'CustomerPriceGroup', sourceCode: 'PG1', sku: 'SKU-1', masterProductNo: null,
      itemDiscountGroup: null, amountType: 'Price', minQuantity: 12, unitPrice: '21.7525', lineDiscountPercent: '2.5000',
      allowLineDiscount: true, allowInvoiceDiscount: false, startDate: AT, endDate: null,
    });
  });

  it('refuses a row whose literals are not those of decisions §2 rather than price with it', () => {
    assert.throws(() => priceRuleFromRow({ ...row, source_type: 'customer' }), /unknown source_type "customer"/);
    assert.throws(() => priceRuleFromRow({ ...row, amount_type: 'Percent' }), /unknown amount_type "Percent"/);
  });
});

describe('loadAllRules and PriceRuleCache (real PostgreSQL)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    const all = (ruleId: string, target: Record<string, string>, extra: Record<string, unknown> = {}) =>
      ({ ruleId, sourceType: 'AllCustomers', amountType: 'Price', unitPrice: '10', ...target, ...extra });
    const res = await putBatch(t, '/pricing/rules', [
      all('R01', { sku: 'A' }),
      { ruleId: 'R02', sourceType: 'Customer', sourceCode: 'C001', sku: 'B', amountType: 'Price', unitPrice: '9', allowLineDiscount: true },
      { ruleId: 'R03', sourceType: 'Customer', sourceCode: 'C999', sku: 'A', amountType: 'Price', unitPrice: '1' },
      { ruleId: 'R04', sourceType: 'CustomerPriceGroup', sourceCode: 'PG1', masterProductNo: 'M-A', amountType: 'Price', unitPrice: '8' },
      { ruleId: 'R05', sourceType: 'CustomerPriceGroup', sourceCode: 'PG9', masterProductNo: 'M-A', amountType: 'Price', unitPrice: '1' },
      { ruleId: 'R06', sourceType: 'CustomerDiscountGroup', sourceCode: 'DG1', itemDiscountGroup: 'G1', amountType: 'Discount', lineDiscountPercent: '12.5' },
      all('R07', { sku: 'Z' }),
      all('R08', { masterProductNo: 'C' }),
      all('R09', { itemDiscountGroup: 'G9' }),
      all('R10', { sku: 'A' }, { minQuantity: 50, startDate: '2020-01-01T00:00:00Z', endDate: '2020-12-31T00:00:00Z', unitPrice: '2' }),
      { ruleId: 'R11', sourceType: 'Customer', sourceCode: 'c001', sku: 'A', amountType: 'Price', unitPrice: '1' },
      all('R12', { masterProductNo: 'B' }),
      { ruleId: 'R13', sourceType: 'CustomerDiscountGroup', sourceCode: 'PG1', sku: 'A', amountType: 'Price', unitPrice: '1' },
      all('R14', { sku: 'A' }, { startDate: '2026-06-15T00:00:00.0005Z', endDate: '2026-06-15T00:00:00.0019Z', unitPrice: '3' }),
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.json().data.every((r: { outcome: string }) => r.outcome === 'Upserted'), res.body);
  });
  after(async () => { await t.close(); });

  const products: PricingProduct[] = [
    { sku: 'A', masterProductNo: 'M-A', itemDiscountGroup: null, unitPrice: '20' },
    { sku: 'B', masterProductNo: 'M-B', itemDiscountGroup: 'G1', unitPrice: '20' },
    { sku: 'C', masterProductNo: null, itemDiscountGroup: '', unitPrice: null },
  ];

  /** Counts statements, to show when the cache asks the database and when it does not. */
  function counting(): { q: Queryable; count: () => number } {
    let n = 0;
    const query = (text: string, values?: unknown[]) => { n += 1; return t.pool.query(text, values); };
    const q: Queryable = { query: query as Queryable['query'] };
    return { q, count: () => n };
  }
  const version = async () => BigInt((await t.pool.query<{ version: string }>('SELECT version FROM price_rules_state')).rows[0]?.version as string);
  const candidateIds = (set: RuleSet, product: PricingProduct, account: PricingAccount = ACCOUNT) =>
    set.index.forAccount(account)(product).map((r) => r.ruleId).sort();

  it('loads every rule with the version it was read at, in one query', async () => {
    const { q, count } = counting();
    const stored = await loadAllRules(q);
    assert.equal(count(), 1);
    assert.equal(stored.version, await version());
    assert.deepEqual(stored.rules.map((r) => r.ruleId), ['R01', 'R02', 'R03', 'R04', 'R05', 'R06', 'R07', 'R08', 'R09', 'R10', 'R11', 'R12', 'R13', 'R14']);
  });

  it('maps rows to rules with exact decimals and instants', async () => {
    const { rules } = await loadAllRules(t.pool);
    assert.deepEqual(rules.find((r) => r.ruleId === 'R06'), {
      ruleId: 'R06', sourceType: 'CustomerDiscountGroup', sourceCode: 'DG1', sku: null, masterProductNo: null,
      itemDiscountGroup: 'G1', amountType: 'Discount', minQuantity: null, unitPrice: null, lineDiscountPercent: '12.5000',
      allowLineDiscount: null, allowInvoiceDiscount: null, startDate: null, endDate: null,
    });
    const r10 = rules.find((r) => r.ruleId === 'R10');
    assert.deepEqual([r10?.minQuantity, r10?.startDate, r10?.endDate], [50, new Date('2020-01-01T00:00:00Z'), new Date('2020-12-31T00:00:00Z')]);
  });

  it('rounds a sub-millisecond window inwards, so inclusive bounds stay exact for a Date', async () => {
    const r14 = (await loadAllRules(t.pool)).rules.find((r) => r.ruleId === 'R14');
    assert.deepEqual([r14?.startDate, r14?.endDate], [new Date('2026-06-15T00:00:00.001Z'), new Date('2026-06-15T00:00:00.001Z')]);
  });

  it('hands each product only the rules of its targets and of the account\'s sources', async () => {
    const set = await new PriceRuleCache(t.pool).atLeast(await version());
    const [a, b, c] = products as [PricingProduct, PricingProduct, PricingProduct];
    // R03 is another customer's, R05 another price group's, R11 a code of another case, R13 a
    // discount group rule whose code is the account's price group: none of them is this account's.
    assert.deepEqual(candidateIds(set, a), ['R01', 'R04', 'R10', 'R14']);
    assert.deepEqual(candidateIds(set, b), ['R02', 'R06']); // R12 aims at master B; B's master is M-B
    assert.deepEqual(candidateIds(set, c), ['R08']);
    // An account without groups is offered only AllCustomers and its own Customer rules.
    assert.deepEqual(candidateIds(set, a, { accountNo: 'C001', priceMode: null, priceGroup: null, discGroup: ' ' }), ['R01', 'R10', 'R14']);
  });

  it('feeds the engine: each product priced from the rule set', async () => {
    const set = await new PriceRuleCache(t.pool).atLeast(await version());
    const priced = (sku: string, at: Date) => {
      const product = products.find((p) => p.sku === sku) as PricingProduct;
      const r = netUnitPrice({ product, account: ACCOUNT, rules: set.index.forAccount(ACCOUNT)(product), at, quantity: 1 });
      return [r.unitPrice, r.priceRule?.ruleId ?? null, r.discountRule?.ruleId ?? null];
    };
    // R14 runs from .0005 to .0019 ms past midnight: only the instant .001 is inside it.
    assert.deepEqual(priced('A', AT), ['8.0000', 'R04', null]);
    assert.deepEqual(priced('A', new Date('2026-06-15T00:00:00.001Z')), ['3.0000', 'R14', null]);
    assert.deepEqual(priced('A', new Date('2026-06-15T00:00:00.002Z')), ['8.0000', 'R04', null]);
    // 9 × 0.875: the customer rule allows line discounts, and G1's discount group rule applies.
    assert.deepEqual(priced('B', AT), ['7.8750', 'R02', 'R06']);
    assert.deepEqual(priced('C', AT), ['10.0000', 'R08', null]);
  });

  it('moves the version only when a batch really changes a rule', async () => {
    const before = await version();
    const same = await putBatch(t, '/pricing/rules', [{ ruleId: 'R07', sourceType: 'AllCustomers', sku: 'Z', amountType: 'Price', unitPrice: '10' }]);
    assert.equal(same.statusCode, 200, same.body);
    assert.equal(await version(), before, 'an identical re-send is not a change');
    const changed = await putBatch(t, '/pricing/rules', [{ ruleId: 'R07', sourceType: 'AllCustomers', sku: 'Z', amountType: 'Price', unitPrice: '11' }]);
    assert.equal(changed.statusCode, 200, changed.body);
    assert.ok(await version() > before);
    // Any writer counts, not only the API: an operator's DELETE by hand invalidates every copy too.
    const afterApi = await version();
    await t.pool.query("DELETE FROM price_rules WHERE rule_id = 'no-such-rule'");
    assert.equal(await version(), afterApi, 'a statement that deletes nothing changes nothing');
  });

  it('moves the version on a TRUNCATE, which has no changed rows to look at', async () => {
    const before = await version();
    const client = await t.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('TRUNCATE price_rules');
      const { rows } = await client.query<{ version: string }>('SELECT version FROM price_rules_state');
      assert.equal(BigInt(rows[0]?.version ?? 0), before + 1n);
    } finally {
      // Rolled back: the rules stay for the other tests of this file.
      await client.query('ROLLBACK');
      client.release();
    }
    assert.equal(await version(), before);
  });

  it('asks nothing while its copy is current, and reloads once the version moves', async () => {
    const { q, count } = counting();
    const cache = new PriceRuleCache(q);
    const first = await cache.atLeast(await version());
    assert.equal(count(), 1);
    assert.equal(await cache.atLeast(first.version), first);
    assert.equal(await cache.atLeast(first.version - 1n), first, 'an older version is served by a newer copy');
    assert.equal(count(), 1);

    await t.pool.query("UPDATE price_rules SET unit_price = 7 WHERE rule_id = 'R04'");
    const second = await cache.atLeast(await version());
    assert.equal(count(), 2);
    assert.ok(second.version > first.version);
    const a = products[0] as PricingProduct;
    assert.equal(netUnitPrice({ product: a, account: ACCOUNT, rules: second.index.forAccount(ACCOUNT)(a), at: AT, quantity: 1 }).unitPrice, '7.0000');
  });

  it('shares one reload among concurrent callers', async () => {
    const { q, count } = counting();
    const cache = new PriceRuleCache(q);
    const wanted = await version();
    const sets = await Promise.all([cache.atLeast(wanted), cache.atLeast(wanted), cache.atLeast(wanted)]);
    assert.equal(count(), 1);
    assert.ok(sets.every((set) => set === sets[0]));
  });

  it('fails the call when the rules cannot be read, and loads on the next one', async () => {
    let fail = true;
    const q: Queryable = { query: ((text: string, values?: unknown[]) => (fail ? Promise.reject(new Error('connection lost')) : t.pool.query(text, values))) as Queryable['query'] };
    const cache = new PriceRuleCache(q);
    await assert.rejects(cache.atLeast(1n), /connection lost/);
    fail = false;
    assert.equal((await cache.atLeast(1n)).version, await version());
  });

  it('loads an empty table as an empty rule set with its version', async () => {
    const empty = await buildTestApp();
    try {
      const stored = await loadAllRules(empty.pool);
      assert.deepEqual(stored.rules, []);
      assert.equal(stored.version, 1n);
    } finally {
      await empty.close();
    }
  });
});
