import { Dec } from '../../platform/decimal.js';
import { AMOUNT_TYPES, SOURCE_TYPES } from './pricing.schemas.js';

/**
 * The net unit price of decisions §4, as pure functions: the repository fetches candidate rules in
 * one query, and everything that decides which rule wins happens here, where it can be tested and
 * explained without a database.
 */

export type SourceType = (typeof SOURCE_TYPES)[number];
export type AmountType = (typeof AMOUNT_TYPES)[number];

export interface PriceRule {
  ruleId: string;
  sourceType: SourceType;
  sourceCode: string | null;
  sku: string | null;
  masterProductNo: string | null;
  itemDiscountGroup: string | null;
  amountType: AmountType;
  minQuantity: number | null;
  unitPrice: string | null;
  lineDiscountPercent: string | null;
  allowLineDiscount: boolean | null;
  allowInvoiceDiscount: boolean | null;
  startDate: Date | null;
  endDate: Date | null;
}

export interface PricingAccount {
  accountNo: string;
  priceMode: string | null;
  priceGroup: string | null;
  discGroup: string | null;
}

/** An account row's pricing fields (accounts' columns) as the engine reads them. */
export const pricingAccountOf = (a: { account_no: string; price_mode: string | null; price_group: string | null; disc_group: string | null }): PricingAccount => ({
  accountNo: a.account_no, priceMode: a.price_mode, priceGroup: a.price_group, discGroup: a.disc_group,
});

/** Everything of the account the engine reads, as one key: a price kept under it is the account's price. */
export const pricingAccountKey = (a: PricingAccount): string => JSON.stringify([a.accountNo, a.priceMode, a.priceGroup, a.discGroup]);

export interface PricingProduct {
  sku: string;
  masterProductNo: string | null;
  itemDiscountGroup: string | null;
  /** List price, decimal text. */
  unitPrice: string | null;
}

export interface NetPrice {
  /** Net, exactly 4 decimal places as text ("21.7525", "52.0000"); null when no price is determinable. */
  unitPrice: string | null;
  /** The product's list price, 4 places, or null. */
  listPrice: string | null;
  basis: 'rule' | 'list' | 'none';
  /** The Price rule chosen, if any. */
  priceRule: PriceRule | null;
  /** The Discount rule applied, if any. */
  discountRule: PriceRule | null;
  /** The applied percent (4 places), or null. */
  discountPercent: string | null;
}

/**
 * A net unit price has 4 places and is applied as written (decisions §4); a quote's line amounts
 * are rounded to the currency's minor unit from it (orders/amounts.engine.ts, decisions §6).
 */
const SCALE = 4;

const isBlank = (value: string | null | undefined): value is null | undefined | '' =>
  value === null || value === undefined || value.trim() === '';

/** A product pushed without a master product number is its own master (decisions §4, result fields). */
function effectiveMasterProductNo(product: Pick<PricingProduct, 'sku' | 'masterProductNo'>): string {
  return isBlank(product.masterProductNo) ? product.sku : product.masterProductNo;
}

/**
 * The account's code that a rule's sourceCode must equal, or null when that kind of source cannot
 * match this account. A blank group is "no group", never a group called "".
 */
function accountSourceCode(account: PricingAccount, sourceType: Exclude<SourceType, 'AllCustomers'>): string | null {
  const code = sourceType === 'Customer' ? account.accountNo
    : sourceType === 'CustomerPriceGroup' ? account.priceGroup
      : account.discGroup;
  return isBlank(code) ? null : code;
}

const CODED_SOURCES = ['Customer', 'CustomerPriceGroup', 'CustomerDiscountGroup'] as const;
type CodedSource = (typeof CODED_SOURCES)[number];

/**
 * One target's rules by source: everyone's, and per code for each coded source type, in the order
 * of CODED_SOURCES (an array, so pricing reads it by index rather than by a computed property name).
 */
interface SourceBuckets {
  everyone: PriceRule[];
  coded: readonly [Map<string, PriceRule[]>, Map<string, PriceRule[]>, Map<string, PriceRule[]>];
}

function bucketsOf(map: Map<string, SourceBuckets>, target: string): SourceBuckets {
  let buckets = map.get(target);
  if (buckets === undefined) {
    buckets = { everyone: [], coded: [new Map(), new Map(), new Map()] };
    map.set(target, buckets);
  }
  return buckets;
}

/** The account's code for each of CODED_SOURCES, in that order; null where it has none. */
type AccountCodes = readonly [string | null, string | null, string | null];

const accountCodes = (account: PricingAccount): AccountCodes => [
  accountSourceCode(account, 'Customer'), accountSourceCode(account, 'CustomerPriceGroup'), accountSourceCode(account, 'CustomerDiscountGroup'),
];

/** Hands `into` the rules of `buckets` whose source is everyone or one of the account's codes. */
function collect(into: { push(rule: PriceRule): unknown }, buckets: SourceBuckets | undefined, codes: AccountCodes): void {
  if (buckets === undefined) return;
  for (const rule of buckets.everyone) into.push(rule);
  for (let i = 0; i < 3; i += 1) {
    const code = codes[i];
    const list = code === null || code === undefined ? undefined : buckets.coded[i]?.get(code);
    if (list !== undefined) for (const rule of list) into.push(rule);
  }
}

/** A net unit price with the window it holds in (`stableWindow` of the rules it was chosen from). */
export interface PricedUnit {
  readonly unitPrice: string | null;
  readonly window: StableWindow;
}

/** A whole `NetPrice` with the window it holds in (`stableWindow` of the rules it was chosen from). */
export interface ExplainedPrice {
  readonly price: NetPrice;
  readonly window: StableWindow;
}

/** A rule list grouped by target and source; `forAccount` fixes the account once for a batch of products. */
export interface RuleIndex {
  /** The rules aimed at a product (its sku, effective master or item discount group) from this account's sources. */
  forAccount(account: PricingAccount): (product: PricingProduct) => PriceRule[];
  /**
   * Prices products for one account at one instant and quantity: for each, `netUnitPrice` of its
   * `forAccount` rules and their `stableWindow`. The rules aimed at an item discount group are the
   * same for every product of the group, so their winners and window are worked out once per group
   * and combined with each product's own (sku and master) rules.
   */
  pricer(account: PricingAccount, at: Date, quantity: number): (product: PricingProduct) => PricedUnit;
  /** As `pricer`, answering the whole `NetPrice` (which rules set the price and discount): what a quote line shows. */
  explainer(account: PricingAccount, at: Date, quantity: number): (product: PricingProduct) => ExplainedPrice;
}

/**
 * Groups rules the way `targetMatches` and `sourceMatches` read a rule (its sku if it has one, else
 * its master number, else its item discount group; everyone, or the one code of its source type),
 * so pricing many products from one large list hands each product only the rules aimed at it and
 * at this account: 3 target lookups, each with 4 sources. The engine still checks every rule it is
 * given; the index only saves looking at rules that cannot match.
 */
export function indexRules(rules: readonly PriceRule[]): RuleIndex {
  const bySku = new Map<string, SourceBuckets>();
  const byMaster = new Map<string, SourceBuckets>();
  const byGroup = new Map<string, SourceBuckets>();
  for (const rule of rules) {
    const buckets = rule.sku !== null ? bucketsOf(bySku, rule.sku)
      : rule.masterProductNo !== null ? bucketsOf(byMaster, rule.masterProductNo)
        : rule.itemDiscountGroup !== null ? bucketsOf(byGroup, rule.itemDiscountGroup)
          : null;
    if (buckets === null) continue;
    if (rule.sourceType === 'AllCustomers') {
      buckets.everyone.push(rule);
    } else if (rule.sourceCode !== null) { // a coded rule without a code matches nobody
      const byCode = buckets.coded[CODED_SOURCES.indexOf(rule.sourceType as CodedSource)] as Map<string, PriceRule[]>;
      const list = byCode.get(rule.sourceCode);
      if (list) list.push(rule);
      else byCode.set(rule.sourceCode, [rule]);
    }
  }
  /**
   * The winners and window of each product's rules for one account, instant and quantity. The rules
   * aimed at an item discount group are the same for every product of the group, so their winners
   * and window are worked out once per group and combined with each product's own (sku and master).
   */
  const tallies = (account: PricingAccount, at: Date, quantity: number): ((product: PricingProduct) => Tally) => {
    const codes = accountCodes(account);
    const t = at.getTime();
    const mode = account.priceMode;
    const groups = new Map<string, Tally>();
    return (product) => {
      const context = ruleContext(product, codes, t, quantity);
      const mine = new Tally(context, mode);
      collect(mine, bySku.get(context.sku), codes);
      collect(mine, byMaster.get(context.master), codes);
      if (context.group !== null) {
        let group = groups.get(context.group);
        if (group === undefined) {
          // Whether a group rule applies depends on the account, the instant, the quantity and the
          // group only, all the same for every product of this group here.
          group = new Tally(context, mode);
          collect(group, byGroup.get(context.group), codes);
          groups.set(context.group, group);
        }
        mine.merge(group);
      }
      return mine;
    };
  };
  return {
    forAccount(account) {
      const codes = accountCodes(account);
      return (product) => {
        const found: PriceRule[] = [];
        collect(found, bySku.get(product.sku), codes);
        collect(found, byMaster.get(effectiveMasterProductNo(product)), codes);
        if (!isBlank(product.itemDiscountGroup)) collect(found, byGroup.get(product.itemDiscountGroup), codes);
        return found;
      };
    },
    pricer(account, at, quantity) {
      const tally = tallies(account, at, quantity);
      return (product) => {
        const winners = tally(product);
        return { unitPrice: unitPriceOf(product, winners), window: winners.window() };
      };
    },
    explainer(account, at, quantity) {
      const tally = tallies(account, at, quantity);
      return (product) => {
        const winners = tally(product);
        return { price: priceOf(product, winners), window: winners.window() };
      };
    },
  };
}

/** Both bounds inclusive; a missing bound is open. `t`: the instant, ms since the epoch. */
function inEffect(rule: PriceRule, t: number): boolean {
  if (rule.startDate !== null && t < rule.startDate.getTime()) return false;
  if (rule.endDate !== null && t > rule.endDate.getTime()) return false;
  return true;
}

/** The instants, as ms since the epoch, within which the price of the same inputs cannot change. */
export interface StableWindow {
  /** Inclusive. */
  from: number;
  /** Exclusive. */
  until: number;
}

/**
 * The stretch of time around `at` in which no rule of `rules` comes into or goes out of effect:
 * a rule starts to apply at its startDate and stops 1 ms after its endDate (`inEffect` compares
 * whole milliseconds, both bounds inclusive). Time is the only input of `netUnitPrice` that moves
 * by itself, so the price of the same product, account, quantity and rules computed at `at` is the
 * price at every instant of this window; a caller may keep it that long.
 */
export function stableWindow(rules: readonly PriceRule[], at: Date): StableWindow {
  const t = at.getTime();
  const window = { from: -Infinity, until: Infinity };
  for (const rule of rules) {
    if (rule.startDate !== null) narrow(window, rule.startDate.getTime(), t);
    if (rule.endDate !== null) narrow(window, rule.endDate.getTime() + 1, t);
  }
  return window;
}

/** Shrinks the window around `t` to the side of `edge` that holds `t`. */
function narrow(window: StableWindow, edge: number, t: number): void {
  if (edge <= t) window.from = Math.max(window.from, edge);
  else window.until = Math.min(window.until, edge);
}

/**
 * What a rule is checked against, worked out once per product and account rather than per rule:
 * the account's codes, the product's effective master and item discount group (null when blank:
 * "no group", never a group called ""), the instant and the quantity.
 */
interface RuleContext {
  readonly codes: AccountCodes;
  readonly sku: string;
  readonly master: string;
  readonly group: string | null;
  readonly t: number;
  readonly quantity: number;
}

function ruleContext(product: PricingProduct, codes: AccountCodes, t: number, quantity: number): RuleContext {
  return {
    codes,
    sku: product.sku,
    master: effectiveMasterProductNo(product),
    group: isBlank(product.itemDiscountGroup) ? null : product.itemDiscountGroup,
    t,
    quantity,
  };
}

/**
 * The rule's source is everyone or the account's code of its type; its target is the product's
 * sku, else its effective master, else its item discount group (the first the rule names); it is in
 * effect; its quantity break is met.
 */
function appliesIn(rule: PriceRule, c: RuleContext): boolean {
  if (rule.sourceType !== 'AllCustomers') {
    const code = c.codes[CODED_SOURCES.indexOf(rule.sourceType)];
    if (code === null || code === undefined || rule.sourceCode !== code) return false;
  }
  const target = rule.sku !== null ? rule.sku === c.sku
    : rule.masterProductNo !== null ? rule.masterProductNo === c.master
      : rule.itemDiscountGroup !== null && c.group !== null && rule.itemDiscountGroup === c.group;
  return target && inEffect(rule, c.t) && (rule.minQuantity ?? 0) <= c.quantity;
}

/** Whether the rule's source, target, validity window and quantity break all fit (priceMode aside). */
export function ruleApplies(rule: PriceRule, product: PricingProduct, account: PricingAccount, at: Date, quantity: number): boolean {
  return appliesIn(rule, ruleContext(product, accountCodes(account), at.getTime(), quantity));
}

/**
 * priceMode narrows the rules (decisions §2). Missing, blank and any value outside the literals
 * count as `Standard`: ingestion refuses other values, so only a hand-edited row could carry one,
 * and `Standard` is what "missing" already means.
 */
function allowedByPriceMode(rule: PriceRule, priceMode: string | null): boolean {
  if (priceMode === 'ListOnly') return false;
  if (priceMode === 'ContractOnly') return rule.sourceType === 'Customer';
  return true;
}

const TARGET_RANK = (rule: PriceRule): number => (rule.sku !== null ? 0 : rule.masterProductNo !== null ? 1 : 2);
const SOURCE_RANK: Record<SourceType, number> = { Customer: 0, CustomerPriceGroup: 1, CustomerDiscountGroup: 2, AllCustomers: 3 };

/**
 * Among rules with the same amount, the most specific one explains the price: sku over master over
 * item discount group, then Customer over price group over discount group over everyone, then the
 * smallest ruleId (code-unit order, independent of any collation), so the answer never depends on
 * the order rules were fetched in.
 */
function moreSpecific(a: PriceRule, b: PriceRule): number {
  return TARGET_RANK(a) - TARGET_RANK(b)
    || SOURCE_RANK[a.sourceType] - SOURCE_RANK[b.sourceType]
    || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0);
}

/**
 * A rule's amount, exact, with the same value as an integer of ten-thousandths when it has at most
 * 4 places (always, for an amount read from a numeric(19,4) column): rules are compared far more
 * often than they are parsed, and comparing two such integers allocates nothing, where a decimal
 * comparison copies its operand.
 */
interface Amount {
  readonly value: Dec;
  /** `value` × 10^SCALE, or null when that is not an integer. */
  readonly scaled: bigint | null;
}

const SCALE_FACTOR = new Dec(10).pow(SCALE);

function amountOf(value: Dec): Amount {
  return { value, scaled: value.decimalPlaces() <= SCALE ? BigInt(value.times(SCALE_FACTOR).toFixed(0)) : null };
}

/** Negative when a < b, positive when a > b, 0 when equal: exactly. */
function compareAmounts(a: Amount, b: Amount): number {
  if (a.scaled !== null && b.scaled !== null) return a.scaled < b.scaled ? -1 : a.scaled > b.scaled ? 1 : 0;
  return a.value.comparedTo(b.value);
}

/** Parsed amounts, once per rule object: a cached rule set prices many calls (rules are never mutated). */
const parsedAmounts = new WeakMap<PriceRule, Amount | null>();

/** The rule's amount: its unit price for a Price rule, its line discount percent for a Discount rule. */
function ruleAmount(rule: PriceRule): Amount | null {
  let amount = parsedAmounts.get(rule);
  if (amount === undefined) {
    const text = rule.amountType === 'Price' ? rule.unitPrice : rule.lineDiscountPercent;
    amount = text === null ? null : amountOf(new Dec(text));
    parsedAmounts.set(rule, amount);
  }
  return amount;
}

interface Choice { rule: PriceRule; amount: Amount }

const HUNDRED = new Dec(100);
const fixed = (value: Dec): string => value.toFixed(SCALE, Dec.ROUND_HALF_UP);

/**
 * List prices parsed and rendered once per distinct text: a catalogue has far fewer distinct prices
 * than lookups, and decimal parsing is most of what pricing a product costs. Bounded: emptied when full.
 */
const LIST_PRICE_MEMO_LIMIT = 100_000;
const listPrices = new Map<string, { value: Dec; text: string }>();

function listPriceOf(product: PricingProduct): { value: Dec; text: string } | null {
  if (isBlank(product.unitPrice)) return null;
  let price = listPrices.get(product.unitPrice);
  if (price === undefined) {
    const value = new Dec(product.unitPrice);
    price = { value, text: fixedText(value) };
    if (listPrices.size >= LIST_PRICE_MEMO_LIMIT) listPrices.clear();
    listPrices.set(product.unitPrice, price);
  }
  return price;
}

/**
 * Net unit price of one product for one account at one instant and quantity (decisions §4):
 * the lowest applicable Price rule, else the list price, else none; then the highest applicable
 * Discount when the chosen price allows line discounts (the list price always does). Equal amounts
 * go to the more specific rule (`moreSpecific`). `rules` may hold candidates for other products and
 * accounts too: each is checked against this product and account.
 */
export function netUnitPrice(input: { product: PricingProduct; account: PricingAccount; rules: readonly PriceRule[]; at: Date; quantity: number }): NetPrice {
  const context = ruleContext(input.product, accountCodes(input.account), input.at.getTime(), input.quantity);
  return priceOf(input.product, choose(input.rules, context, input.account.priceMode));
}

/** The winning Price rule and Discount rule of a set of rules, either null when none applies. */
interface Winners {
  readonly chosen: Choice | null;
  readonly bestDiscount: Choice | null;
}

/** The lowest price wins; equal prices go to the more specific rule. */
const lowerPrice = (a: Choice | null, b: Choice | null): Choice | null =>
  (a === null ? b : b === null ? a : (compareAmounts(b.amount, a.amount) || moreSpecific(b.rule, a.rule)) < 0 ? b : a);

/** The highest discount wins; equal discounts go to the more specific rule. */
const higherDiscount = (a: Choice | null, b: Choice | null): Choice | null =>
  (a === null ? b : b === null ? a : (compareAmounts(a.amount, b.amount) || moreSpecific(b.rule, a.rule)) < 0 ? b : a);

/**
 * The winners among the rules that apply in `context` and pass the price mode. Each winner is the
 * least of a total order (amount, then `moreSpecific`, which ends with the unique ruleId), so the
 * winners of a union are the winners of its parts' winners (`pricer` relies on it).
 */
function choose(rules: readonly PriceRule[], context: RuleContext, priceMode: string | null): Winners {
  const tally = new Tally(context, priceMode);
  for (const rule of rules) tally.compete(rule);
  return tally;
}

/** The net price of a product from the winners of its rules. */
function priceOf(product: PricingProduct, winners: Winners): NetPrice {
  const { chosen } = winners;
  const listPrice = listPriceOf(product);
  const price = chosen?.amount.value ?? listPrice?.value ?? null;
  if (price === null) {
    return { unitPrice: null, listPrice: null, basis: 'none', priceRule: null, discountRule: null, discountPercent: null };
  }

  const discount = appliedDiscount(winners);
  return {
    unitPrice: netText(price, discount),
    listPrice: listPrice?.text ?? null,
    basis: chosen === null ? 'list' : 'rule',
    priceRule: chosen?.rule ?? null,
    discountRule: discount?.rule ?? null,
    discountPercent: discount === null ? null : fixedText(discount.amount.value),
  };
}

/** The open window: no candidate rule starts or ends; shared, never changed. */
const ALWAYS: StableWindow = Object.freeze({ from: -Infinity, until: Infinity });

/**
 * The winners of rules taken one at a time (`choose`), and, for the candidates `collect` hands it,
 * their `stableWindow` too: pricing a batch of products that are not held (`RuleIndex.pricer`)
 * does this once per product without gathering its rules into a list first.
 */
class Tally implements Winners, StableWindow {
  chosen: Choice | null = null;
  bestDiscount: Choice | null = null;
  from = -Infinity;
  until = Infinity;

  constructor(private readonly context: RuleContext, private readonly priceMode: string | null) {}

  /** A candidate narrows the window whether or not it applies (`stableWindow`), and competes. */
  push(rule: PriceRule): void {
    if (rule.startDate !== null) narrow(this, rule.startDate.getTime(), this.context.t);
    if (rule.endDate !== null) narrow(this, rule.endDate.getTime() + 1, this.context.t);
    this.compete(rule);
  }

  /** The rule wins when it applies, passes the price mode and beats the winner of its kind. */
  compete(rule: PriceRule): void {
    if (!allowedByPriceMode(rule, this.priceMode) || !appliesIn(rule, this.context)) return;
    const amount = ruleAmount(rule);
    if (amount === null) return;
    if (rule.amountType === 'Price') this.chosen = lowerPrice(this.chosen, { rule, amount });
    else this.bestDiscount = higherDiscount(this.bestDiscount, { rule, amount });
  }

  /** Adds the winners and window of another tally (a union's winners are its parts' winners). */
  merge(other: Tally): void {
    this.chosen = lowerPrice(this.chosen, other.chosen);
    this.bestDiscount = higherDiscount(this.bestDiscount, other.bestDiscount);
    this.from = Math.max(this.from, other.from);
    this.until = Math.min(this.until, other.until);
  }

  window(): StableWindow {
    return this.from === -Infinity && this.until === Infinity ? ALWAYS : { from: this.from, until: this.until };
  }
}

/** The discount that applies: a null allowLineDiscount does not allow it, so a contract price stays net unless the ERP says otherwise. */
const appliedDiscount = ({ chosen, bestDiscount }: Winners): Choice | null =>
  (chosen === null || chosen.rule.allowLineDiscount === true ? bestDiscount : null);

/** The net unit price as text: the price less the discount, if any. */
const netText = (price: Dec, discount: Choice | null): string =>
  (discount === null ? fixedText(price) : discountedText(price, discount.rule, discount.amount.value));

/** `priceOf(product, winners).unitPrice`, without the rest of the explanation. */
function unitPriceOf(product: PricingProduct, winners: Winners): string | null {
  const price = winners.chosen?.amount.value ?? listPriceOf(product)?.value ?? null;
  return price === null ? null : netText(price, appliedDiscount(winners));
}

/*
 * Rendered amounts, memoised on the decimals they come from. Rule amounts are parsed once per rule
 * object and list prices once per distinct text, so the same decimal objects come back call after
 * call, and the decimal arithmetic (most of what pricing a product costs) runs once per distinct
 * price and discount rather than once per product and call. Decimals are immutable, so a memo
 * can never answer differently from the arithmetic.
 */
const fixedTexts = new WeakMap<Dec, string>();
const discountedTexts = new WeakMap<Dec, WeakMap<PriceRule, string>>();

function fixedText(value: Dec): string {
  let text = fixedTexts.get(value);
  if (text === undefined) {
    text = fixed(value);
    fixedTexts.set(value, text);
  }
  return text;
}

/** price × (100 − percent) / 100, rounded half-up to 4 places. */
function discountedText(price: Dec, rule: PriceRule, percent: Dec): string {
  let byRule = discountedTexts.get(price);
  if (byRule === undefined) {
    byRule = new WeakMap();
    discountedTexts.set(price, byRule);
  }
  let text = byRule.get(rule);
  if (text === undefined) {
    text = fixed(price.times(HUNDRED.minus(percent)).dividedBy(HUNDRED));
    byRule.set(rule, text);
  }
  return text;
}

/** A row of `price_rules` as node-postgres returns it (numeric as text, timestamptz as Date). */
export interface PriceRuleRow {
  rule_id: string;
  source_type: string;
  source_code: string | null;
  master_product_no: string | null;
  sku: string | null;
  item_discount_group: string | null;
  amount_type: string;
  min_quantity: number | null;
  unit_price: string | null;
  line_discount_percent: string | null;
  allow_line_discount: boolean | null;
  allow_invoice_discount: boolean | null;
  start_date: Date | null;
  end_date: Date | null;
}

const isSourceType = (value: string): value is SourceType => (SOURCE_TYPES as readonly string[]).includes(value);
const isAmountType = (value: string): value is AmountType => (AMOUNT_TYPES as readonly string[]).includes(value);

/**
 * Ingestion only stores the literals of decisions §2, so anything else is a damaged row; pricing
 * with it could quote a wrong price, so it fails loudly instead.
 */
export function priceRuleFromRow(row: PriceRuleRow): PriceRule {
  if (!isSourceType(row.source_type)) throw new Error(`price rule ${row.rule_id} has an unknown source_type "${row.source_type}"`);
  if (!isAmountType(row.amount_type)) throw new Error(`price rule ${row.rule_id} has an unknown amount_type "${row.amount_type}"`);
  return {
    ruleId: row.rule_id,
    sourceType: row.source_type,
    sourceCode: row.source_code,
    sku: row.sku,
    masterProductNo: row.master_product_no,
    itemDiscountGroup: row.item_discount_group,
    amountType: row.amount_type,
    minQuantity: row.min_quantity,
    unitPrice: row.unit_price,
    lineDiscountPercent: row.line_discount_percent,
    allowLineDiscount: row.allow_line_discount,
    allowInvoiceDiscount: row.allow_invoice_discount,
    startDate: row.start_date,
    endDate: row.end_date,
  };
}
