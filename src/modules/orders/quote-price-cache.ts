import { LRUCache } from 'lru-cache';
import {
  pricingAccountKey, type ExplainedPrice, type NetPrice, type PricingAccount, type PricingProduct, type RuleSet,
} from '../pricing/index.js';

/** A quote line's price, with everything it was computed from that its key does not name. */
interface KeptLinePrice {
  /** The rule set it was priced with: a reloaded set is a new object. */
  readonly rules: RuleSet;
  /** The product's fields the engine reads besides its SKU (`PricingProduct`), as they were. */
  readonly masterProductNo: string | null;
  readonly itemDiscountGroup: string | null;
  readonly unitPrice: string | null;
  readonly explained: ExplainedPrice;
}

/** Line prices kept per process: each entry is a few hundred bytes, its rules shared with the rule set. */
const MAX_ENTRIES = 50_000;

/**
 * Quote line prices (`RuleIndex.explainer`) kept across quotes, as the lookup keeps its unit prices
 * (`keptPrice` in lookup.service.ts): a buyer quotes the same basket again and again before ordering
 * it. A kept price answers only for the same account fields, SKU and quantity (its key), the same
 * rule set, the same product fields and an instant within its stable window, which are every input
 * of `netUnitPrice`; otherwise the line is priced again and kept in its place.
 */
export class QuotePriceCache {
  readonly #kept: LRUCache<string, KeptLinePrice>;

  constructor(maxEntries: number = MAX_ENTRIES) {
    this.#kept = new LRUCache<string, KeptLinePrice>({ max: maxEntries });
  }

  /** Prices products at quantities for one account, rule set and instant (one quote's lines). */
  pricer(account: PricingAccount, rules: RuleSet, at: Date): (product: PricingProduct, quantity: number) => NetPrice {
    const accountKey = pricingAccountKey(account);
    const t = at.getTime();
    // One explainer per quantity: products of one item discount group share its rules' winners.
    const explainers = new Map<number, (product: PricingProduct) => ExplainedPrice>();
    return (product, quantity) => {
      const key = `${quantity}\u0000${product.sku}\u0000${accountKey}`;
      const kept = this.#kept.get(key);
      if (kept !== undefined && kept.rules === rules && t >= kept.explained.window.from && t < kept.explained.window.until
        && kept.unitPrice === product.unitPrice && kept.masterProductNo === product.masterProductNo
        && kept.itemDiscountGroup === product.itemDiscountGroup) {
        return kept.explained.price;
      }
      let explainer = explainers.get(quantity);
      if (explainer === undefined) {
        explainer = rules.index.explainer(account, at, quantity);
        explainers.set(quantity, explainer);
      }
      const explained = explainer(product);
      this.#kept.set(key, {
        rules, masterProductNo: product.masterProductNo, itemDiscountGroup: product.itemDiscountGroup, unitPrice: product.unitPrice, explained,
      });
      return explained.price;
    };
  }
}
