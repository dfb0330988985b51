import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Pool } from '../platform/db/pool.js';
import {
  emptyOrderedBasket, readBasket, setBasketCheckout, setBasketQuantities,
  type Basket, type BasketOwner,
} from '../modules/baskets/index.js';
import { accountOverview, type AccountView } from '../modules/ledger/index.js';
import {
  CUSTOMER_REFERENCE_LENGTH as MAX_CUSTOMER_REFERENCE, MAX_BASKET_LINES, orderPlacedWithKey, placeOrder, priceBasket,
  type PricedBasket, type Quote, type QuoteLine,
} from '../modules/orders/index.js';
import type { Shipping } from '../modules/freight/index.js';
import { formatDate, formatMoney, formatQuantity } from './format.js';
import { readQuantity } from './quantity.js';
import { isKeyReused, orderRefusal, unpriceableLines } from './refusals.js';
import type { PortalServices } from './portal.plugin.js';
import { sendPage, type FieldError } from './render.js';
import { basketOwnerOf, buyerOf, type SignedInBuyer, type sessionGuards } from './session.js';

/**
 * The basket and placing its order (issue 14). The basket holds SKUs, quantities and the checkout
 * choices; everything shown about money, stock, freight and tax is the quote service's answer for
 * the buyer's account at that moment (`priceBasket`), the same the public API's quote gives.
 */

export interface PageRoutesDeps {
  guards: ReturnType<typeof sessionGuards>;
  pool: Pool;
  services: PortalServices;
}

// Form bodies: quantities and SKUs repeat (one per line), everything else is one string.
const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const Repeated = (maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Array(Type.String({ maxLength }), { maxItems: MAX_BASKET_LINES })]));
const CSRF = Text(200);
const UpdateForm = Type.Object({ _csrf: CSRF, sku: Repeated(100), quantity: Repeated(40), remove: Text(100) });
const CheckoutForm = Type.Object({ _csrf: CSRF, shipToCode: Text(100), customerReference: Text(200) });
/**
 * "Place order" posts the whole delivery form: the ship-to chosen on the page, the one the page was
 * priced for, and the purchase-order number as typed (saved or not).
 */
const OrderForm = Type.Object({ _csrf: CSRF, version: Text(40), shipToCode: Text(100), pricedShipToCode: Text(100), customerReference: Text(200) });
const DoneQuery = Type.Object({ done: Text(20) });

const listOf = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

const DONE: Record<string, string> = {
  updated: 'Your basket has been updated.',
  removed: 'The line has been removed from your basket.',
  saved: 'Your delivery details have been saved and the basket priced for them.',
  changed: 'Your basket changed after you opened this page, so the order was not placed. Check the basket and place the order again.',
  repriced: 'You chose another delivery address, so the order was not placed: your delivery details have been saved and the basket priced for them. Check the freight, tax and total, then place the order.',
};

/** One Idempotency-Key per basket version of a user and account: the same form posted twice places one order. */
export function basketOrderKey(owner: BasketOwner, version: string): string {
  return `portal-basket-${createHash('sha256').update(JSON.stringify([owner.userId, owner.accountNo, version])).digest('base64url')}`;
}

const STATUS_WORDS: Record<string, string> = {
  Active: 'Active', OnHold: 'On hold', Blocked: 'Blocked', Closed: 'Closed',
};
export const accountStatusWords = (status: string): string => STATUS_WORDS[status] ?? status;

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
  const how = `${shipping.method === 'Road' ? 'Road' : 'Air'} freight by ${shipping.agentCode} (${shipping.serviceCode})`;
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
  name?: string | null;
  unitPrice?: string;
  lineAmount?: string;
  availability?: string;
  tax?: { amount: string; note: string | null };
}

/** What the basket page shows; built from the basket, the account and one or two quotes. */
interface BasketModel {
  basket: Basket;
  account: AccountView;
  shipToCode: string | null;
  lines: BasketLineView[];
  quote: Quote | undefined;
  /** Why the basket cannot be ordered now, in words. */
  reasons: Array<{ id: string; text: string }>;
  /** What the buyer should know that does not stop the order (untaxed lines). */
  notes: string[];
  orderable: boolean;
  freight: ReturnType<typeof freightWords> | undefined;
  totals: { net: string; tax: string; freight: string; total: string } | undefined;
}

async function loadBasket(deps: PageRoutesDeps, buyer: SignedInBuyer, typed: Map<number, string> = new Map()): Promise<BasketModel> {
  const owner = basketOwnerOf(buyer);
  const [basket, account] = await Promise.all([readBasket(deps.pool, owner), accountOverview(deps.services.account, buyer.accountNo)]);
  const codes = new Set(account.shipToAddresses.map((s) => s.shipToCode));
  const shipToCode = [basket.shipToCode, account.defaultShipToCode, account.shipToAddresses[0]?.shipToCode]
    .find((c): c is string => typeof c === 'string' && codes.has(c)) ?? null;
  const currency = deps.services.orders.currency;
  const reasons: BasketModel['reasons'] = [];
  const notes: string[] = [];
  if (basket.shipToCode !== null && !codes.has(basket.shipToCode) && basket.lines.length > 0) {
    reasons.push({ id: 'shipToCode', text: `The ship-to ${basket.shipToCode} you chose is no longer on your account: choose where to deliver.` });
  }

  // A line the account can no longer buy makes the quote refuse the whole basket (naming each):
  // those lines are shown as no longer available, and the rest priced without them.
  const unavailable = new Set<number>();
  let priced: PricedBasket | undefined;
  /** Basket line index → quote line index. */
  const byIndex = new Map<number, number>();
  const at = (deps.services.orders.now ?? (() => new Date()))();
  for (let attempt = 0; attempt < 2 && basket.lines.length > 0 && shipToCode !== null; attempt += 1) {
    const kept = basket.lines.map((l, i) => ({ l, i })).filter(({ i }) => !unavailable.has(i));
    if (kept.length === 0) break;
    try {
      priced = await priceBasket(deps.services.orders, deps.pool, buyer.accountNo, { shipToCode, lines: kept.map(({ l }) => ({ sku: l.sku, quantity: l.quantity })) }, at);
      // Quote lines in the order of the kept basket lines.
      kept.forEach(({ i }, n) => byIndex.set(i, n));
      break;
    } catch (error) {
      const refusedLines = unpriceableLines(error);
      if (refusedLines === undefined) throw error;
      let named = false;
      for (const line of refusedLines) {
        const entry = kept[line];
        if (entry !== undefined) {
          unavailable.add(entry.i);
          named = true;
        }
      }
      if (!named) {
        reasons.push({ id: 'shipToCode', text: 'This basket cannot be priced for the chosen ship-to: choose another.' });
        break;
      }
    }
  }
  const quote = priced?.quote;

  const lines: BasketLineView[] = basket.lines.map((l, index) => {
    const base = { index, sku: l.sku, quantity: l.quantity, typed: typed.get(index) ?? String(l.quantity) };
    const n = byIndex.get(index);
    const q = n === undefined || quote === undefined ? undefined : quote.lines[n];
    if (unavailable.has(index) || q === undefined) return { ...base, unavailable: unavailable.has(index) };
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

  if (account.status !== 'Active') {
    reasons.push({ id: 'reasons', text: `Your account is ${accountStatusWords(account.status).toLowerCase()}: only an active account can place orders. Contact your account manager.` });
  }
  for (const line of lines) {
    if (line.unavailable) reasons.push({ id: `line-${line.index}`, text: `${line.sku} is no longer available to your account: remove it to order the rest.` });
  }
  if (basket.lines.length > 0 && account.shipToAddresses.length === 0) {
    reasons.push({ id: 'reasons', text: 'Your account has no delivery address (ship-to) yet. Contact your account manager.' });
  }
  if (quote !== undefined) {
    const basketIndex = new Map([...byIndex].map(([i, n]) => [n, i]));
    quote.lines.forEach((q, n) => {
      const i = basketIndex.get(n) ?? 0;
      if (q.lineAmount === null) reasons.push({ id: `line-${i}`, text: `${q.sku} (${q.name}) has no price for your account: remove it or contact your account manager.` });
      if (q.tax.basis === 'Untaxed' && q.lineAmount !== null) notes.push(`${q.sku} (${q.name}) is not taxed: ${q.tax.reason ?? 'no tax rate applies'}.`);
    });
    const shipping = (priced as PricedBasket).shipping;
    if (shipping.status === 'Unquotable') reasons.push({ id: 'shipToCode', text: `Delivery to ship-to ${quote.shipToCode} cannot be quoted: ${shipping.reason}` });
    if (shipping.status === 'Unshippable') reasons.push({ id: 'shipToCode', text: `This basket cannot be shipped to ship-to ${quote.shipToCode}: ${shipping.reason}` });
    // Any other reason the quote service gives is shown as it words it: none is ever hidden.
    if (!quote.orderable && reasons.length === 0) quote.reasons.forEach((text) => reasons.push({ id: 'reasons', text }));
  }
  const orderable = quote !== undefined && quote.orderable && unavailable.size === 0 && reasons.length === 0;
  return {
    basket,
    account,
    shipToCode,
    lines,
    quote,
    reasons,
    notes,
    orderable,
    freight: priced === undefined ? undefined : freightWords(priced.shipping, currency),
    totals: quote === undefined ? undefined : {
      net: formatMoney(quote.totals.net, currency),
      tax: formatMoney(quote.totals.tax, currency),
      freight: formatMoney(quote.totals.freight, currency),
      total: formatMoney(quote.totals.total, currency),
    },
  };
}

async function sendBasket(
  reply: FastifyReply, deps: PageRoutesDeps, buyer: SignedInBuyer,
  options: { status?: number; errors?: FieldError[]; typed?: Map<number, string>; done?: string | undefined; form?: { shipToCode?: string; customerReference?: string }; refused?: string } = {},
): Promise<FastifyReply> {
  const model = await loadBasket(deps, buyer, options.typed);
  return sendPage(reply, 'basket', {
    title: 'Your basket',
    buyer,
    csrfToken: buyer.csrfToken,
    errors: options.errors,
    done: options.done === undefined ? undefined : DONE[options.done],
    refused: options.refused,
    ...model,
    shipToChosen: options.form?.shipToCode ?? model.shipToCode,
    customerReference: options.form?.customerReference ?? model.basket.customerReference ?? '',
    maxReference: MAX_CUSTOMER_REFERENCE,
  }, options.status ?? 200);
}

function referenceError(customerReference: string): FieldError | undefined {
  if ([...customerReference].length <= MAX_CUSTOMER_REFERENCE) return undefined;
  return { field: 'customerReference', message: `Purchase order number must be ${MAX_CUSTOMER_REFERENCE} characters or fewer` };
}

export async function basketRoutes(app: FastifyInstance, deps: PageRoutesDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: deps.guards.requireBuyer };

  portal.get('/basket', { schema: { hide: true, querystring: DoneQuery }, ...guard }, async (request, reply) => {
    return sendBasket(reply, deps, buyerOf(request), { done: request.query.done });
  });

  // "Update basket": every quantity at once (0 removes), or one line's remove button.
  portal.post('/basket/update', { schema: { hide: true, body: UpdateForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const skus = listOf(request.body.sku);
    const quantities = listOf(request.body.quantity);
    const errors: FieldError[] = [];
    const typed = new Map<number, string>();
    const lines: Array<{ sku: string; quantity: number }> = [];
    skus.forEach((sku, i) => {
      const text = (quantities[i] ?? '').trim().replace(/,/g, '');
      typed.set(i, quantities[i] ?? '');
      const read = readQuantity(text, sku, 0);
      if ('quantity' in read) lines.push({ sku, quantity: read.quantity });
      else errors.push({ field: `quantity-${i}`, message: `Enter the quantity of ${sku} as a whole number, 0 to remove it` });
    });
    const remove = request.body.remove;
    if (remove !== undefined) {
      // The remove button of one line: that line goes, with whatever valid quantities were typed.
      await setBasketQuantities(deps.pool, basketOwnerOf(buyer), [...lines.filter((l) => l.sku !== remove), { sku: remove, quantity: 0 }]);
      return reply.redirect('/basket?done=removed', 303);
    }
    if (errors.length > 0) return sendBasket(reply, deps, buyer, { status: 400, errors, typed });
    await setBasketQuantities(deps.pool, basketOwnerOf(buyer), lines);
    return reply.redirect('/basket?done=updated', 303);
  });

  /** Keeps the delivery details with the basket (the ship-to one of the account's), or shows what is wrong. */
  async function saveDelivery(reply: FastifyReply, buyer: SignedInBuyer, shipToCode: string, customerReference: string, done: 'saved' | 'repriced'): Promise<FastifyReply> {
    const errors: FieldError[] = [];
    const account = await accountOverview(deps.services.account, buyer.accountNo);
    if (!account.shipToAddresses.some((s) => s.shipToCode === shipToCode)) errors.push({ field: 'shipToCode', message: 'Choose where to deliver the order' });
    const tooLong = referenceError(customerReference);
    if (tooLong !== undefined) errors.push(tooLong);
    if (errors.length > 0) return sendBasket(reply, deps, buyer, { status: 400, errors, form: { shipToCode, customerReference } });
    await setBasketCheckout(deps.pool, basketOwnerOf(buyer), { shipToCode, customerReference });
    return reply.redirect(`/basket?done=${done}`, 303);
  }

  // Delivery details: the ship-to (one of the account's) and the purchase-order number, kept with the basket.
  portal.post('/basket/checkout', { schema: { hide: true, body: CheckoutForm }, ...guard }, async (request, reply) => {
    return saveDelivery(reply, buyerOf(request), (request.body.shipToCode ?? '').trim(), (request.body.customerReference ?? '').trim(), 'saved');
  });

  /**
   * Places the order for the basket the buyer saw (its version is in the form). The key derived
   * from that version makes a double click or a resubmitted form one order; the basket is emptied
   * only after the order committed and only if it is still that version, so nothing is lost.
   */
  portal.post('/basket/order', { schema: { hide: true, body: OrderForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const owner = basketOwnerOf(buyer);
    const version = request.body.version ?? '';
    if (!/^\d{1,19}$/.test(version)) return reply.redirect('/basket?done=changed', 303);
    const chosen = request.body.shipToCode?.trim() || null;
    const pricedFor = request.body.pricedShipToCode?.trim() || chosen;
    const typedReference = request.body.customerReference?.trim();
    if (chosen !== null && chosen !== pricedFor) {
      // Another ship-to than the page priced: freight and tax may differ, so save it and show the new price.
      return saveDelivery(reply, buyer, chosen, typedReference ?? (await readBasket(deps.pool, owner)).customerReference ?? '', 'repriced');
    }
    const tooLong = typedReference === undefined ? undefined : referenceError(typedReference);
    if (tooLong !== undefined) {
      const form = { shipToCode: chosen ?? '', customerReference: typedReference ?? '' };
      return sendBasket(reply, deps, buyer, { status: 400, errors: [tooLong], form, refused: 'Your order was not placed. Your basket has been kept as it is.' });
    }
    const key = basketOrderKey(owner, version);
    const basket = await readBasket(deps.pool, owner);
    if (basket.version !== version) {
      // Already placed from that version (the form sent twice, the basket since emptied): its order.
      const placed = await orderPlacedWithKey(deps.services.orders, buyer.accountNo, key);
      if (placed !== undefined) return reply.redirect(`/orders/${encodeURIComponent(placed)}?placed=1`, 303);
      return reply.redirect('/basket?done=changed', 303);
    }
    if (basket.lines.length === 0) return reply.redirect('/basket', 303);
    // A basket whose ship-to was never saved orders to the one the page priced it for (the account's default).
    const shipToCode = basket.shipToCode ?? pricedFor;
    if (shipToCode === null) {
      return sendBasket(reply, deps, buyer, { status: 400, errors: [{ field: 'shipToCode', message: 'Choose where to deliver the order and save it before placing the order' }] });
    }
    const reference = typedReference === undefined ? basket.customerReference : typedReference || null;
    let placed: { orderNumber: string; replayed: boolean };
    try {
      const body = {
        shipToCode,
        lines: basket.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })),
        // The number on the page when it was posted; a form without the field orders with the saved one.
        ...(reference === null ? {} : { customerReference: reference }),
      };
      placed = await placeOrder(deps.services.orders, buyer.accountNo, body, key);
    } catch (error) {
      const refused = orderRefusal(error);
      if (refused === undefined) throw error;
      if (isKeyReused(error)) {
        // This basket version was ordered already, with another purchase-order number (the form sent
        // again after the number was changed): that first order stands, as for any repeated form.
        const first = await orderPlacedWithKey(deps.services.orders, buyer.accountNo, key);
        if (first !== undefined) return reply.redirect(`/orders/${encodeURIComponent(first)}?placed=1`, 303);
      }
      const form = { shipToCode, customerReference: reference ?? '' };
      return sendBasket(reply, deps, buyer, { status: refused.status, errors: refused.errors, form, refused: 'Your order was not placed. Your basket has been kept as it is.' });
    }
    const emptied = await emptyOrderedBasket(deps.pool, owner, version);
    // A replayed answer whose basket is no longer that version: the first post emptied it.
    const kept = !emptied && !placed.replayed;
    return reply.redirect(`/orders/${encodeURIComponent(placed.orderNumber)}?placed=${kept ? 'kept' : '1'}`, 303);
  });
}
