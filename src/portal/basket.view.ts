import type { Basket } from '../modules/baskets/index.js';
import type { AccountView } from '../modules/ledger/index.js';
import { carrierWords, type Shipping } from '../modules/freight/index.js';
import type { AvailableLinesPricing, PricedBasket, Quote, QuoteLine } from '../modules/orders/index.js';
import { accountStatusWords } from './account.view.js';
import { formatDate, formatMoney, formatQuantity } from '../platform/format.js';
import type { SkuColourway } from '../modules/search/index.js';
import { lineHref } from './links.js';
import { totalsView } from './orders.view.js';

/**
 * The basket page's view model: the basket, the account and the quote of the lines it may still
 * buy (`priceAvailableLines`), in words. Every reason the basket cannot be ordered is said.
 */

/** The message after each of the basket's forms (`/basket?done=…`). */
export const DONE: Record<string, string> = {
  updated: 'Your basket has been updated.',
  removed: 'The line has been removed from your basket.',
  saved: 'Your delivery details have been saved and the basket priced for them.',
  changed: 'Your basket changed after you opened this page, so the order was not placed. Check the basket and place the order again.',
  repriced: 'You chose another delivery address, so the order was not placed: your delivery details have been saved and the basket priced for them. Check the freight, tax and total, then place the order.',
};

/** Availability of a quote line in words. */
export function availabilityWords(a: QuoteLine['availability']): string {
  if (a.backOrder === 0) return 'Available now';
  const when = a.incomingDate === null ? 'no delivery date expected yet' : `expected ${formatDate(a.incomingDate)}`;
  if (a.fromStock === 0) return `On back order (${when})`;
  return `${formatQuantity(a.fromStock)} available now, ${formatQuantity(a.backOrder)} on back order (${when})`;
}

function taxWords(tax: QuoteLine['tax'], currency: string): { amount: string; note: string | null } {
  const amount = formatMoney(tax.amount, currency);
  if (tax.ratePercent !== null && tax.reason === null) return { amount, note: `${Number(tax.ratePercent)}%` };
  if (tax.basis === 'NotLiable') return { amount, note: `Not taxed: ${tax.reason ?? 'the account is not tax liable'}` };
  if (tax.basis === 'FirstNations') return { amount, note: `Exempt: ${tax.reason ?? 'First Nations destination'}` };
  return { amount, note: tax.reason === null ? null : `Not taxed: ${tax.reason}` };
}

function freightWords(shipping: Shipping, currency: string): { summary: string; packages: string[]; amount: string | null } {
  if (shipping.status === 'Unquotable') return { summary: `Delivery cannot be quoted to this ship-to: ${shipping.reason}`, packages: [], amount: null };
  if (shipping.status === 'Unshippable') return { summary: `This basket cannot be shipped: ${shipping.reason}`, packages: [], amount: null };
  const how = carrierWords(shipping);
  const packages = shipping.packages.map((p) => `${formatQuantity(p.count)} × ${p.description ?? p.packageTypeId} at ${formatMoney(p.freightCost, currency)} each: ${formatMoney(p.amount, currency)}`);
  return { summary: shipping.basis === 'PerPackage' ? `${how}, charged per package` : how, packages, amount: formatMoney(shipping.amount, currency) };
}

export interface BasketLineView {
  index: number;
  sku: string;
  quantity: number;
  /** The quantity as typed when the form is shown again with errors. */
  typed: string;
  unavailable: boolean;
  /** Its product page; null when the account can no longer open one. */
  href: string | null;
  name?: string | null;
  unitPrice?: string;
  lineAmount?: string;
  availability?: string;
  tax?: { amount: string; note: string | null };
}

interface Reason { id: string; text: string }

/** What the basket page shows; built from the basket, the account and the quote of its available lines. */
export interface BasketModel {
  basket: Basket;
  account: AccountView;
  shipToCode: string | null;
  lines: BasketLineView[];
  quote: Quote | undefined;
  /** Why the basket cannot be ordered now, in words. */
  reasons: Reason[];
  /** What the buyer should know that does not stop the order (untaxed lines). */
  notes: string[];
  orderable: boolean;
  freight: ReturnType<typeof freightWords> | undefined;
  totals: { net: string; tax: string; freight: string; total: string } | undefined;
}

/** The ship-to the basket is priced for: the one saved with it, else the account's default, else its first; only one the account still has. */
export function pricedShipTo(basket: Basket, account: AccountView): string | null {
  const codes = new Set(account.shipToAddresses.map((s) => s.shipToCode));
  return [basket.shipToCode, account.defaultShipToCode, account.shipToAddresses[0]?.shipToCode]
    .find((c): c is string => typeof c === 'string' && codes.has(c)) ?? null;
}

const NOTHING_PRICED: AvailableLinesPricing = { priced: undefined, unavailable: new Set(), quoteLineOf: new Map(), shipToRefused: false };

function lineViews(
  basket: Basket, pricing: AvailableLinesPricing, typed: ReadonlyMap<number, string>, currency: string, colourways: ReadonlyMap<string, SkuColourway>,
): BasketLineView[] {
  const quote = pricing.priced?.quote;
  return basket.lines.map((l, index) => {
    const base = { index, sku: l.sku, quantity: l.quantity, typed: typed.get(index) ?? String(l.quantity), href: lineHref(l.sku, colourways) };
    const n = pricing.quoteLineOf.get(index);
    const q = n === undefined || quote === undefined ? undefined : quote.lines[n];
    if (pricing.unavailable.has(index) || q === undefined) return { ...base, unavailable: pricing.unavailable.has(index) };
    return {
      ...base,
      unavailable: false,
      name: q.name,
      unitPrice: formatMoney(q.unitPrice, currency, 'No price'),
      lineAmount: formatMoney(q.lineAmount, currency, 'No price'),
      availability: availabilityWords(q.availability),
      tax: taxWords(q.tax, currency),
    };
  });
}

/** What stops the order besides the quote: the ship-to, the account, lines no longer available, no delivery address. */
function basketReasons(basket: Basket, account: AccountView, shipToRefused: boolean, lines: readonly BasketLineView[]): Reason[] {
  const reasons: Reason[] = [];
  const codes = new Set(account.shipToAddresses.map((s) => s.shipToCode));
  if (basket.shipToCode !== null && !codes.has(basket.shipToCode) && basket.lines.length > 0) {
    reasons.push({ id: 'shipToCode', text: `The ship-to ${basket.shipToCode} you chose is no longer on your account: choose where to deliver.` });
  }
  if (shipToRefused) reasons.push({ id: 'shipToCode', text: 'This basket cannot be priced for the chosen ship-to: choose another.' });
  if (account.status !== 'Active') {
    reasons.push({ id: 'reasons', text: `Your account is ${accountStatusWords(account.status).toLowerCase()}: only an active account can place orders. Contact your account manager.` });
  }
  for (const line of lines) {
    if (line.unavailable) reasons.push({ id: `line-${line.index}`, text: `${line.sku} is no longer available to your account: remove it to order the rest.` });
  }
  if (basket.lines.length > 0 && account.shipToAddresses.length === 0) {
    reasons.push({ id: 'reasons', text: 'Your account has no delivery address (ship-to) yet. Contact your account manager.' });
  }
  return reasons;
}

/** The quote's reasons (unpriced lines, shipping) added to `reasons`, and its notes (untaxed lines). */
function quoteReasons(priced: PricedBasket, quoteLineOf: ReadonlyMap<number, number>, reasons: Reason[]): string[] {
  const { quote, shipping } = priced;
  const notes: string[] = [];
  const basketIndex = new Map([...quoteLineOf].map(([i, n]) => [n, i]));
  quote.lines.forEach((q, n) => {
    const i = basketIndex.get(n) ?? 0;
    if (q.lineAmount === null) reasons.push({ id: `line-${i}`, text: `${q.sku} (${q.name}) has no price for your account: remove it or contact your account manager.` });
    if (q.tax.basis === 'Untaxed' && q.lineAmount !== null) notes.push(`${q.sku} (${q.name}) is not taxed: ${q.tax.reason ?? 'no tax rate applies'}.`);
  });
  if (shipping.status === 'Unquotable') reasons.push({ id: 'shipToCode', text: `Delivery to ship-to ${quote.shipToCode} cannot be quoted: ${shipping.reason}` });
  if (shipping.status === 'Unshippable') reasons.push({ id: 'shipToCode', text: `This basket cannot be shipped to ship-to ${quote.shipToCode}: ${shipping.reason}` });
  // Any other reason the quote service gives is shown as it words it: none is ever hidden.
  if (!quote.orderable && reasons.length === 0) quote.reasons.forEach((text) => reasons.push({ id: 'reasons', text }));
  return notes;
}

export interface BasketInput {
  basket: Basket;
  account: AccountView;
  shipToCode: string | null;
  /** Undefined when there is no ship-to to price for. */
  pricing: AvailableLinesPricing | undefined;
  /** Quantities as typed (line index → text), when the form is shown again with errors. */
  typed: ReadonlyMap<number, string>;
  currency: string;
  /** The colourway of each line's SKU the account can open (`colourwaysOfSkus`): the line links to its product page. */
  colourways?: ReadonlyMap<string, SkuColourway>;
}

export function basketModel({ basket, account, shipToCode, pricing = NOTHING_PRICED, typed, currency, colourways = new Map() }: BasketInput): BasketModel {
  const { priced } = pricing;
  const lines = lineViews(basket, pricing, typed, currency, colourways);
  const reasons = basketReasons(basket, account, pricing.shipToRefused, lines);
  const notes = priced === undefined ? [] : quoteReasons(priced, pricing.quoteLineOf, reasons);
  const quote = priced?.quote;
  return {
    basket,
    account,
    shipToCode,
    lines,
    quote,
    reasons,
    notes,
    orderable: quote !== undefined && quote.orderable && pricing.unavailable.size === 0 && reasons.length === 0,
    freight: priced === undefined ? undefined : freightWords(priced.shipping, currency),
    totals: quote === undefined ? undefined : totalsView(quote.totals, currency),
  };
}
