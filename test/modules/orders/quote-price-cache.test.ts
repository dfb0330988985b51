import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  indexRules, netUnitPrice, type PriceRule, type PricingAccount, type PricingProduct, type RuleIndex,
} from '../../../src/modules/pricing/pricing.engine.js';
import type { RuleSet } from '../../../src/modules/pricing/rule-cache.js';
import { QuotePriceCache } from '../../../src/modules/orders/quote-price-cache.js';

const AT = new Date('2026-06-15T00:00:00Z');
const PRODUCT: PricingProduct = { sku: 'SKU-1', masterProductNo: 'M-1', itemDiscountGroup: 'IDG-1', unitPrice: '52' };
const ACCOUNT: PricingAccount = { accountNo: 'C001', priceMode: null, priceGroup: 'PG1', discGroup: 'DG1' };

function rule(ruleId: string, extra: Partial<PriceRule>): PriceRule {
  return {
    ruleId, sourceType: 'AllCustomers', sourceCode: null, sku: 'SKU-1', masterProductNo: null, itemDiscountGroup: null,
    amountType: 'Price', minQuantity: null, unitPrice: '10', lineDiscountPercent: null, allowLineDiscount: null,
    allowInvoiceDiscount: null, startDate: null, endDate: null, ...extra,
  };
}

const RULES: PriceRule[] = [
  // 40 until the end of June 30th, then the list price.
  rule('R-JUNE', { unitPrice: '40', endDate: new Date('2026-06-30T23:59:59.999Z') }),
  // 35 from 10 units.
  rule('R-BREAK', { unitPrice: '35', minQuantity: 10 }),
  // 38 for price group PG2 only.
  rule('R-PG2', { unitPrice: '38', sourceType: 'CustomerPriceGroup', sourceCode: 'PG2' }),
];

/** A rule set over `rules` whose index counts the products it prices. */
function countingRuleSet(rules: readonly PriceRule[], version = 1n): { ruleSet: RuleSet; priced: () => number } {
  const index = indexRules(rules);
  let count = 0;
  const counting: RuleIndex = {
    ...index,
    explainer(account, at, quantity) {
      const explain = index.explainer(account, at, quantity);
      return (product) => {
        count += 1;
        return explain(product);
      };
    },
  };
  return { ruleSet: { version, index: counting }, priced: () => count };
}

const expected = (product: PricingProduct, account: PricingAccount, at: Date, quantity: number) =>
  netUnitPrice({ product, account, rules: RULES, at, quantity });

describe('QuotePriceCache', () => {
  it('answers a line priced before for the same account, SKU, quantity, rules and product without pricing it again', () => {
    const cache = new QuotePriceCache();
    const { ruleSet, priced } = countingRuleSet(RULES);
    const first = cache.pricer(ACCOUNT, ruleSet, AT)(PRODUCT, 1);
    assert.deepEqual(first, expected(PRODUCT, ACCOUNT, AT, 1));
    assert.equal(first.unitPrice, '40.0000');
    // Another quote, a day later: still within the window of R-JUNE.
    const later = new Date('2026-06-16T00:00:00Z');
    assert.deepEqual(cache.pricer({ ...ACCOUNT }, ruleSet, later)({ ...PRODUCT }, 1), expected(PRODUCT, ACCOUNT, later, 1));
    assert.equal(priced(), 1);
  });

  it('prices again for another quantity, another account field, another rule set and a changed product', () => {
    const cache = new QuotePriceCache();
    const { ruleSet, priced } = countingRuleSet(RULES);
    cache.pricer(ACCOUNT, ruleSet, AT)(PRODUCT, 1);

    assert.equal(cache.pricer(ACCOUNT, ruleSet, AT)(PRODUCT, 10).unitPrice, '35.0000', 'the quantity break');
    assert.equal(priced(), 2);

    const pg2 = { ...ACCOUNT, priceGroup: 'PG2' };
    assert.deepEqual(cache.pricer(pg2, ruleSet, AT)(PRODUCT, 1), expected(PRODUCT, pg2, AT, 1));
    assert.equal(cache.pricer(pg2, ruleSet, AT)(PRODUCT, 1).unitPrice, '38.0000');
    assert.equal(priced(), 3);

    const listOnly = { ...ACCOUNT, priceMode: 'ListOnly' };
    assert.deepEqual(cache.pricer(listOnly, ruleSet, AT)(PRODUCT, 1), expected(PRODUCT, listOnly, AT, 1));
    assert.equal(priced(), 4);

    // A reloaded rule set (a new object, even with the same rules) prices again.
    const reloaded = countingRuleSet(RULES, 2n);
    assert.deepEqual(cache.pricer(ACCOUNT, reloaded.ruleSet, AT)(PRODUCT, 1), expected(PRODUCT, ACCOUNT, AT, 1));
    assert.equal(reloaded.priced(), 1);

    // Each field of the product the engine reads.
    for (const changed of [{ unitPrice: '30' }, { masterProductNo: 'M-2' }, { itemDiscountGroup: null }] as Array<Partial<PricingProduct>>) {
      const product = { ...PRODUCT, ...changed };
      const before = reloaded.priced();
      assert.deepEqual(cache.pricer(ACCOUNT, reloaded.ruleSet, AT)(product, 1), expected(product, ACCOUNT, AT, 1), JSON.stringify(changed));
      assert.equal(reloaded.priced(), before + 1, JSON.stringify(changed));
    }
  });

  it('prices again once the instant leaves the window of the rules it was priced from', () => {
    const cache = new QuotePriceCache();
    const { ruleSet, priced } = countingRuleSet(RULES);
    assert.equal(cache.pricer(ACCOUNT, ruleSet, AT)(PRODUCT, 1).unitPrice, '40.0000');
    const july = new Date('2026-07-01T00:00:00Z');
    const price = cache.pricer(ACCOUNT, ruleSet, july)(PRODUCT, 1);
    assert.deepEqual(price, expected(PRODUCT, ACCOUNT, july, 1));
    assert.equal(price.unitPrice, '52.0000');
    assert.equal(priced(), 2);
  });

  it('keeps at most its bound, the least recently used going first', () => {
    const cache = new QuotePriceCache(2);
    const { ruleSet, priced } = countingRuleSet(RULES);
    const price = cache.pricer(ACCOUNT, ruleSet, AT);
    price(PRODUCT, 1);
    price(PRODUCT, 2);
    price(PRODUCT, 3);
    assert.equal(priced(), 3);
    price(PRODUCT, 3);
    price(PRODUCT, 2);
    assert.equal(priced(), 3, 'quantities 2 and 3 are held');
    price(PRODUCT, 1);
    assert.equal(priced(), 4, 'quantity 1 was dropped');
  });
});
