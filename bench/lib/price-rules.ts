import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import type { PriceRuleItem } from '../../src/modules/pricing/pricing.schemas.js';
import { seededRandom } from './catalogue.js';

/**
 * Generated price rules (price list lines) for the lookup benchmark: deterministic (seeded), over
 * every source type, target kind and amount type, so the lookup's candidate-rule query and the
 * pricing engine see the mix an ERP sends rather than one convenient shape.
 *
 * Proportions, chosen to look like a wholesaler's price lists rather than to flatter the lookup:
 * - targets: 60 % one SKU, 39 % a master product (every variant), 1 % an item discount group. Group
 *   rules are few but each one is a candidate for every product of its group, so a 100-key
 *   request meets ~100 of them whatever the SKUs;
 * - sources: everyone, one account (a tenth of those to the account the bench asks for, the
 *   contract prices of a large customer), a price group, or a discount group — group rules are
 *   mostly discount-group line discounts, as in an ERP's line discount matrix;
 * - Price rules (below the list price) and Discount rules (2–35 %); a quarter with a quantity break
 *   above 1, which the lookup (quantity 1) fetches and must then leave out;
 * - validity: open, current, started, expired and future windows on fixed dates, so the data do not
 *   depend on the day the bench runs (until 2035).
 */

export interface PriceRuleSetOptions {
  readonly products: readonly ProductItem[];
  readonly accountNos: readonly string[];
  readonly priceGroups: readonly string[];
  readonly discGroups: readonly string[];
  /** The account the bench looks up for; it gets a tenth of the Customer rules. */
  readonly favouredAccountNo: string;
  readonly count: number;
  readonly seed?: number;
}

const CURRENT = { startDate: '2025-01-01T00:00:00Z', endDate: '2035-12-31T23:59:59Z' };
const STARTED = { startDate: '2024-07-01T00:00:00+10:00' };
const EXPIRED = { startDate: '2023-01-01T00:00:00Z', endDate: '2024-12-31T23:59:59Z' };
const FUTURE = { startDate: '2036-01-01T00:00:00Z', endDate: '2036-12-31T23:59:59Z' };
const QUANTITY_BREAKS = [6, 12, 24, 48, 100];

type Source = Pick<PriceRuleItem, 'sourceType' | 'sourceCode'>;

export function generatePriceRules(options: PriceRuleSetOptions): PriceRuleItem[] {
  const random = seededRandom(options.seed ?? 20_251_205);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const { products, accountNos, priceGroups, discGroups } = options;
  if (products.length === 0 || accountNos.length === 0 || priceGroups.length === 0 || discGroups.length === 0) {
    throw new Error('price rules need products, accounts, price groups and discount groups');
  }

  // A master's price is its first variant's: generated masters share one scaled price.
  const masterPrice = new Map<string, number>();
  const groups = new Set<string>();
  for (const p of products) {
    const master = p.masterProductNo ?? p.sku;
    if (!masterPrice.has(master) && typeof p.unitPrice === 'number') masterPrice.set(master, p.unitPrice);
    if (p.itemDiscountGroup) groups.add(p.itemDiscountGroup);
  }
  const masters = [...masterPrice.keys()];
  const itemGroups = [...groups].sort();

  const customer = (): Source => ({
    sourceType: 'Customer',
    sourceCode: random() < 0.1 ? options.favouredAccountNo : pick(accountNos),
  });
  const productSource = (): Source => {
    const r = random();
    if (r < 0.2) return { sourceType: 'AllCustomers' };
    if (r < 0.6) return customer();
    if (r < 0.88) return { sourceType: 'CustomerPriceGroup', sourceCode: pick(priceGroups) };
    return { sourceType: 'CustomerDiscountGroup', sourceCode: pick(discGroups) };
  };
  const groupSource = (): Source => {
    const r = random();
    if (r < 0.7) return { sourceType: 'CustomerDiscountGroup', sourceCode: pick(discGroups) };
    if (r < 0.8) return { sourceType: 'AllCustomers' };
    if (r < 0.9) return { sourceType: 'CustomerPriceGroup', sourceCode: pick(priceGroups) };
    return customer();
  };
  const validity = (): Partial<PriceRuleItem> => {
    const r = random();
    if (r < 0.55) return {};
    if (r < 0.8) return CURRENT;
    if (r < 0.9) return STARTED;
    if (r < 0.95) return EXPIRED;
    return FUTURE;
  };
  const discount = (): string => (2 + random() * 33).toFixed(2);

  const rules: PriceRuleItem[] = [];
  const width = Math.max(6, String(options.count).length);
  for (let i = 0; i < options.count; i += 1) {
    const ruleId = `BR-${String(i + 1).padStart(width, '0')}`;
    const t = random();
    let target: Partial<PriceRuleItem>;
    let listPrice: number | undefined;
    let source: Source;
    let priceShare: number;
    if (t < 0.6 || itemGroups.length === 0) {
      const product = pick(products);
      target = { sku: product.sku };
      listPrice = typeof product.unitPrice === 'number' ? product.unitPrice : undefined;
      source = productSource();
      priceShare = 0.65;
    } else if (t < 0.99) {
      const master = pick(masters);
      target = { masterProductNo: master };
      listPrice = masterPrice.get(master);
      source = productSource();
      priceShare = 0.65;
    } else {
      target = { itemDiscountGroup: pick(itemGroups) };
      source = groupSource();
      // A price for a whole discount group is rare; it stands in for a clearance price.
      priceShare = 0.1;
    }
    const isPrice = random() < priceShare;
    const amount: Pick<PriceRuleItem, 'amountType'> & Partial<PriceRuleItem> = isPrice
      ? {
        amountType: 'Price',
        unitPrice: ((listPrice ?? 40) * (0.55 + random() * 0.42)).toFixed(4),
        // Some contract prices stay net, some allow a line discount on top, some leave it unsaid.
        ...(random() < 0.8 ? { allowLineDiscount: random() < 0.6 } : {}),
      }
      : { amountType: 'Discount', lineDiscountPercent: discount() };
    rules.push({
      ruleId,
      ...source,
      ...target,
      ...amount,
      ...(random() < 0.25 ? { minQuantity: pick(QUANTITY_BREAKS) } : {}),
      ...(random() < 0.5 ? { allowInvoiceDiscount: random() < 0.7 } : {}),
      ...validity(),
    });
  }
  return rules;
}
