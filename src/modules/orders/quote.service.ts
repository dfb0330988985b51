import { siteDay } from '../../platform/day.js';
import type { Pool, Queryable } from '../../platform/db/pool.js';
import { currencyMinorUnit } from '../../platform/money.js';
import { compileItemValidator, type ItemError } from '../../platform/schema/item-validator.js';
import { brandEntitlement } from '../catalogue/index.js';
import { accountNotFound } from '../customers/index.js';
import { quoteFreight, type Shipping } from '../freight/index.js';
import { availableNow, decodeStock, type Stock } from '../inventory/index.js';
import { pricingAccountOf, type PriceRuleCache } from '../pricing/index.js';
import { taxDataKeys, taxResolver, type LineTax, type TaxAccount, type TaxShipTo } from '../tax/index.js';
import { documentTotals, lineAmount as lineAmountOf, sumOf } from './amounts.engine.js';
import type { QuotePriceCache } from './quote-price-cache.js';
import type { TradingReferenceCache } from './reference-cache.js';
import { findPricingRows, type BasketAccount, type BasketProduct, type BasketShipTo } from './basket.repository.js';
import { ordersRefusals, type BasketProblem, type Blocker, type OrdersRefusals, type UnknownSku } from './orders.refusals.js';
import { QuoteBodySchema, type Quote, type QuoteBody, type QuoteLine } from './orders.schemas.js';

/**
 * A basket priced as a quote (issue 13): each line by the pricing engine at its quantity, its
 * availability from the pushed stock, its tax from the tax chain or GST matrix, and freight for the
 * consignment; every amount rounded once to the currency's minor unit, the totals their sums
 * (amounts.engine.ts). What cannot be done (no routing, a band gap, a broken tax chain, no price)
 * is said in the quote, never answered with an error status; only a basket the account may not ask
 * about at all (an unknown ship-to, a SKU it cannot see) is refused.
 */

export interface QuoteDeps {
  pool: Pool;
  /** ISO 4217 of every amount (SITE_CURRENCY). */
  currency: string;
  /** IANA zone whose calendar date picks the tax rates in effect (SITE_TIME_ZONE). */
  timeZone: string;
  rules: PriceRuleCache;
  /** Line prices kept across quotes, checked against the rule set, product and instant on every line. */
  prices: QuotePriceCache;
  /** Freight and tax reference data kept per destination and tax keys, checked against their version on every quote. */
  reference: TradingReferenceCache;
  now?: () => Date;
}

/** A quote with what placing it as an order needs besides. */
export interface PricedBasket {
  quote: Quote;
  shipTo: BasketShipTo;
  /** The quote's shipping as the engine typed it. */
  shipping: Shipping;
  /** What stops the basket being ordered, each on the line it concerns or on the whole basket. */
  blockers: Blocker[];
}

const validateBody = compileItemValidator(QuoteBodySchema);

/** `/lines/3/quantity` → the field `lines`, line 3: the validator's pointer read once, here, so no caller parses it. */
const TOP_FIELD = /^\/([^/]*)(?:\/(\d+))?/;

function onBasket(problem: ItemError): BasketProblem {
  const found = TOP_FIELD.exec(problem.path);
  const field = found?.[1] ?? '';
  return { ...problem, field, ...(field === 'lines' && found?.[2] !== undefined ? { line: Number(found[2]) } : {}) };
}

/** The body as a basket, or the `basket-invalid` refusal naming every bad path. */
export function parseBasket<T extends QuoteBody>(body: unknown, validate: (value: unknown) => ItemError[] = validateBody): T {
  const problems = validate(body);
  if (problems.length > 0) {
    throw ordersRefusals.refuse('basket-invalid', `The basket is invalid at ${problems.map((p) => p.path || '(body)').join(', ')}.`, { problems: problems.map(onBasket) });
  }
  return body as T;
}

const notActive = (account: BasketAccount): string =>
  `Account ${account.account_no} is ${account.status}; only an Active account can place orders.`;

const accountCannotTransact = (account: BasketAccount) =>
  ordersRefusals.refuse('account-not-active', notActive(account), { accountNo: account.account_no, status: account.status });

const ZERO = '0.0000';

/** The stored stock text starts `{"onHand":N,"reserved":N,` (encodeStock renders exactly that). */
const STOCK_HEAD = /^\{"onHand":(\d+),"reserved":(\d+),/;

/** `availableNow` read from the head of the stored text: the locations and receipts are parsed only when a line needs them. */
function availableOf(stockJson: string): number {
  const head = STOCK_HEAD.exec(stockJson);
  return availableNow(head === null ? decodeStock(stockJson) : { onHand: Number(head[1]), reserved: Number(head[2]) });
}

/**
 * Availability per line: the SKU's on hand − reserved serves its lines in basket order; the rest
 * of a line is on back order, covered by the earliest expected receipt date by which the incoming
 * quantity (all locations, by date) reaches everything the SKU's lines have put on back order.
 */
class StockLedger {
  readonly #left = new Map<string, { stockJson: string | null; incoming: Stock['incoming'] | undefined; available: number; free: number; backOrdered: number }>();

  take(sku: string, stockJson: string | null, quantity: number): QuoteLine['availability'] {
    let entry = this.#left.get(sku);
    if (entry === undefined) {
      const available = stockJson === null ? 0 : availableOf(stockJson);
      entry = { stockJson, incoming: undefined, available, free: available, backOrdered: 0 };
      this.#left.set(sku, entry);
    }
    const fromStock = Math.min(quantity, entry.free);
    entry.free -= fromStock;
    const backOrder = quantity - fromStock;
    let incomingDate: string | null = null;
    if (backOrder > 0) {
      entry.backOrdered += backOrder;
      entry.incoming ??= entry.stockJson === null ? [] : decodeStock(entry.stockJson).incoming;
      let incoming = 0;
      for (const line of entry.incoming) {
        incoming += line.quantity;
        if (incoming >= entry.backOrdered) {
          incomingDate = line.expectedDate;
          break;
        }
      }
    }
    return { available: entry.available, fromStock, backOrder, incomingDate };
  }
}

const UNPRICED_TAX: LineTax = { amount: ZERO, ratePercent: null, basis: 'Untaxed', reason: 'the line has no price', taxAreaCode: null, components: [] };

/**
 * Prices a basket for an account at an instant. `q` reads every input, so that an order prices
 * inside its own transaction exactly what it stores.
 */
export async function priceBasket(
  deps: QuoteDeps, q: Queryable, accountNo: string, basket: QuoteBody, at: Date, options: { forOrder?: boolean } = {},
): Promise<PricedBasket> {
  const skus = basket.lines.map((line) => line.sku);
  const rows = await findPricingRows(q, accountNo, basket.shipToCode, skus);
  const { account, shipTo, products } = rows;
  if (account === undefined) throw accountNotFound(accountNo);
  if (options.forOrder && account.status !== 'Active') throw accountCannotTransact(account);

  const restricted = new Set<string>();
  for (const p of products.values()) if (p.brand_restricted && p.brand_code !== null) restricted.add(p.brand_code);
  const mayBuy = brandEntitlement({ allowedBrands: account.allowed_brands, indentBrands: account.indent_brands }, restricted);
  const unknownShipTo: OrdersRefusals['basket-unpriceable']['unknownShipTo'] = shipTo === undefined
    ? { shipToCode: basket.shipToCode, accountNo, message: `unknown ship-to "${basket.shipToCode}" for account ${accountNo}` }
    : null;
  const unknownSkus: UnknownSku[] = [];
  const found: BasketProduct[] = [];
  basket.lines.forEach((line, i) => {
    const product = products.get(line.sku);
    // Unknown, blocked and not entitled read the same, so an account cannot probe for hidden products.
    if (product === undefined || product.blocked === true || !mayBuy(product.brand_code)) {
      unknownSkus.push({ line: i, sku: line.sku, message: `unknown SKU "${line.sku}"` });
    } else {
      found.push(product);
    }
  });
  if (unknownSkus.length > 0 || shipTo === undefined) {
    const messages = [...(unknownShipTo ? [unknownShipTo.message] : []), ...unknownSkus.map((u) => `line ${u.line + 1}: ${u.message}`)];
    throw ordersRefusals.refuse('basket-unpriceable', `The basket cannot be priced: ${messages.join('; ')}.`, { unknownShipTo, unknownSkus });
  }

  const taxAccount: TaxAccount = { taxLiable: account.tax_liable, taxAreaCode: account.tax_area_code, gstBusinessPostingGroup: account.gst_business_posting_group };
  const taxShipTo: TaxShipTo = { taxLiable: shipTo.tax_liable, taxAreaCode: shipTo.tax_area_code, isFirstNations: shipTo.is_first_nations };
  // Rules and reference data as of the versions read with the account, or newer (rule-cache.ts, reference-cache.ts).
  const referenceVersion = BigInt(account.reference_version);
  const [ruleSet, freightData, taxData] = await Promise.all([
    deps.rules.atLeast(account.rules_version),
    // A blank country or postcode is the engine's to explain (Unquotable); the loader reads nothing for it.
    deps.reference.freight(referenceVersion, shipTo.ship_to_country_region_code, shipTo.ship_to_post_code),
    deps.reference.tax(referenceVersion, taxDataKeys(taxAccount, taxShipTo)),
  ]);

  const day = siteDay(at, deps.timeZone);
  const minorUnit = currencyMinorUnit(deps.currency);
  const taxOf = taxResolver({ account: taxAccount, shipTo: taxShipTo, day, data: taxData, minorUnit });
  const priceOf = deps.prices.pricer(pricingAccountOf(account), ruleSet, at);
  const stock = new StockLedger();
  const blockers: Blocker[] = [];
  if (account.status !== 'Active') blockers.push({ message: notActive(account) });

  const lines: QuoteLine[] = basket.lines.map((line, i) => {
    const product = found[i] as BasketProduct;
    const pricingProduct = {
      sku: product.sku, masterProductNo: product.master_product_no, itemDiscountGroup: product.item_discount_group, unitPrice: product.unit_price,
    };
    const price = priceOf(pricingProduct, line.quantity);
    const lineAmount = price.unitPrice === null ? null : lineAmountOf(line.quantity, price.unitPrice, minorUnit);
    if (lineAmount === null) blockers.push({ line: i, message: `Line ${i + 1} (SKU ${line.sku}) has no price for account ${account.account_no}.` });
    const lineTax = lineAmount === null
      ? UNPRICED_TAX
      : taxOf({ sku: product.sku, taxGroupCode: product.tax_group_code, gstProductPostingGroup: product.gst_product_posting_group }, lineAmount);
    return {
      lineNumber: i + 1,
      sku: product.sku,
      name: product.name,
      quantity: line.quantity,
      unitPrice: price.unitPrice,
      lineAmount,
      pricing: {
        basis: price.basis,
        listPrice: price.listPrice,
        priceRuleId: price.priceRule?.ruleId ?? null,
        discountRuleId: price.discountRule?.ruleId ?? null,
        lineDiscountPercent: price.discountPercent,
      },
      availability: stock.take(product.sku, product.stock_json, line.quantity),
      tax: lineTax,
    };
  });

  const shipping = quoteFreight({
    countryRegionCode: shipTo.ship_to_country_region_code,
    postcode: shipTo.ship_to_post_code,
    items: basket.lines.map((line, i) => {
      const p = found[i] as BasketProduct;
      return { sku: p.sku, quantity: line.quantity, weight: p.weight, length: p.length, width: p.width, height: p.height };
    }),
    // The consignment value for the bands is the net, Σ of the rounded line amounts.
    value: sumOf(lines.map((l) => l.lineAmount)),
    at,
    data: freightData,
    minorUnit,
  });
  if (shipping.status !== 'Quoted') blockers.push({ message: `Shipping is ${shipping.status}: ${shipping.reason}` });
  const freight = shipping.status === 'Quoted' ? shipping.amount : ZERO;

  const quote: Quote = {
    currency: deps.currency,
    shipToCode: shipTo.ship_to_code,
    pricedAt: at.toISOString(),
    day,
    orderable: blockers.length === 0,
    reasons: blockers.map((b) => b.message),
    lines,
    shipping,
    totals: documentTotals(lines.map((l) => ({ lineAmount: l.lineAmount, taxAmount: l.tax.amount })), freight, minorUnit),
  };
  return { quote, shipTo, shipping, blockers };
}

/** What `priceAvailableLines` made of a saved basket. */
export interface AvailableLinesPricing {
  /** The quote of the lines the account may still buy; undefined when nothing could be priced. */
  priced: PricedBasket | undefined;
  /** Indexes of the lines the account may no longer buy (unknown, blocked or no longer entitled). */
  unavailable: ReadonlySet<number>;
  /** A line's index → the index of its line in the quote. */
  quoteLineOf: ReadonlyMap<number, number>;
  /** The quote refused the basket without naming a line (the ship-to): nothing priced. */
  shipToRefused: boolean;
}

/**
 * A saved basket priced now for a page that shows it (the portal's basket). A line the account can
 * no longer buy makes the quote refuse the whole basket, naming each such line: those lines are set
 * aside and the rest priced once more, so the page can show both.
 */
export async function priceAvailableLines(
  deps: QuoteDeps, accountNo: string, shipToCode: string, lines: ReadonlyArray<{ sku: string; quantity: number }>,
): Promise<AvailableLinesPricing> {
  const unavailable = new Set<number>();
  const quoteLineOf = new Map<number, number>();
  const answer = (priced: PricedBasket | undefined, shipToRefused = false) => ({ priced, unavailable, quoteLineOf, shipToRefused });
  const at = (deps.now ?? (() => new Date()))();
  for (let attempt = 0; attempt < 2 && lines.length > 0; attempt += 1) {
    const kept = lines.map((line, i) => ({ line, i })).filter(({ i }) => !unavailable.has(i));
    if (kept.length === 0) break;
    try {
      const priced = await priceBasket(deps, deps.pool, accountNo, { shipToCode, lines: kept.map(({ line }) => ({ sku: line.sku, quantity: line.quantity })) }, at);
      // Quote lines in the order of the kept lines.
      kept.forEach(({ i }, n) => quoteLineOf.set(i, n));
      return answer(priced);
    } catch (error) {
      if (!ordersRefusals.is(error) || error.code !== 'basket-unpriceable') throw error;
      const named = error.details.unknownSkus.flatMap((u) => kept[u.line] ?? []);
      for (const { i } of named) unavailable.add(i);
      if (named.length === 0) return answer(undefined, true);
    }
  }
  return answer(undefined);
}

/** POST /quotes: the basket priced now for the caller's account. */
export async function quoteBasket(deps: QuoteDeps, accountNo: string, body: unknown): Promise<Quote> {
  const basket = parseBasket<QuoteBody>(body);
  const at = (deps.now ?? (() => new Date()))();
  return (await priceBasket(deps, deps.pool, accountNo, basket, at)).quote;
}
