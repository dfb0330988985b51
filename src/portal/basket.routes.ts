import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  emptyOrderedBasket, readBasket, setBasketCheckout, setBasketQuantities, type BasketOwner,
} from '../modules/baskets/index.js';
import { accountOverview } from '../modules/ledger/index.js';
import { colourwaysOfSkus } from '../modules/search/index.js';
import {
  CUSTOMER_REFERENCE_LENGTH, MAX_BASKET_LINES, orderPlacedWithKey, placeOrder, priceAvailableLines,
} from '../modules/orders/index.js';
import { readOrderForm, readUpdateForm, referenceError, type OrderForm as PostedOrder } from './basket.form.js';
import { DONE, basketModel, pricedShipTo, type BasketModel } from './basket.view.js';
import { flashParts, setFlash, takeFlash } from './flash.js';
import { placedFlash, submittedFlash, type Placed } from './orders.view.js';
import type { PageDeps } from './portal.types.js';
import { isKeyReused, orderRefusal } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import { basketOwnerOf, buyerOf, type SignedInBuyer } from './session.js';

/**
 * The basket and placing its order (issue 14). The basket holds SKUs, quantities and the checkout
 * choices; everything shown about money, stock, freight and tax is the quote service's answer for
 * the buyer's account at that moment (`priceAvailableLines`), the same the public API's quote gives.
 */

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

const NOT_PLACED = 'Your order was not placed. Your basket has been kept as it is.';

/** One Idempotency-Key per basket version of a user and account: the same form posted twice places one order. */
export function basketOrderKey(owner: BasketOwner, version: string): string {
  return `portal-basket-${createHash('sha256').update(JSON.stringify([owner.userId, owner.accountNo, version])).digest('base64url')}`;
}

/**
 * The basket, the account, the quote of the lines the account may still buy (for the ship-to the
 * basket is priced for), and the product page of each line, the last two at once.
 */
async function loadBasket(deps: PageDeps, buyer: SignedInBuyer, typed: ReadonlyMap<number, string> = new Map()): Promise<BasketModel> {
  const { services } = deps;
  const [basket, account] = await Promise.all([readBasket(deps.pool, basketOwnerOf(buyer)), accountOverview(services.account, buyer.accountNo)]);
  const shipToCode = pricedShipTo(basket, account);
  const [pricing, colourways] = await Promise.all([
    shipToCode === null ? undefined : priceAvailableLines(services.orders, buyer.accountNo, shipToCode, basket.lines),
    colourwaysOfSkus(services.current.search, buyer.accountNo, basket.lines.map((l) => l.sku)),
  ]);
  return basketModel({ basket, account, shipToCode, pricing, typed, currency: services.orders.currency, colourways });
}

interface BasketPageOptions {
  status?: number;
  errors?: FieldError[];
  typed?: Map<number, string>;
  done?: string | undefined;
  /** The one-time message of the form that redirected here ("Order again"). */
  flash?: string | undefined;
  form?: { shipToCode?: string; customerReference?: string };
  refused?: string;
}

async function sendBasket(reply: FastifyReply, deps: PageDeps, buyer: SignedInBuyer, options: BasketPageOptions = {}): Promise<FastifyReply> {
  const model = await loadBasket(deps, buyer, options.typed);
  return sendPage(reply, 'basket', {
    title: 'Your basket',
    buyer,
    csrfToken: buyer.csrfToken,
    errors: options.errors,
    done: options.done === undefined ? undefined : DONE[options.done],
    flash: options.flash === undefined ? undefined : flashParts(options.flash),
    refused: options.refused,
    ...model,
    shipToChosen: options.form?.shipToCode ?? model.shipToCode,
    customerReference: options.form?.customerReference ?? model.basket.customerReference ?? '',
    maxReference: CUSTOMER_REFERENCE_LENGTH,
  }, options.status ?? 200);
}

/** Keeps the delivery details with the basket (the ship-to one of the account's), or shows what is wrong. */
async function saveDelivery(
  reply: FastifyReply, deps: PageDeps, buyer: SignedInBuyer, shipToCode: string, customerReference: string, done: 'saved' | 'repriced',
): Promise<FastifyReply> {
  const errors: FieldError[] = [];
  const account = await accountOverview(deps.services.account, buyer.accountNo);
  if (!account.shipToAddresses.some((s) => s.shipToCode === shipToCode)) errors.push({ field: 'shipToCode', message: 'Choose where to deliver the order' });
  const tooLong = referenceError(customerReference);
  if (tooLong !== undefined) errors.push(tooLong);
  if (errors.length > 0) return sendBasket(reply, deps, buyer, { status: 400, errors, form: { shipToCode, customerReference } });
  await setBasketCheckout(deps.pool, basketOwnerOf(buyer), { shipToCode, customerReference });
  return reply.redirect(`/basket?done=${done}`, 303);
}

/**
 * To the order's page, which says "Order placed" once (the flash; a reload shows the order alone),
 * or, for an order over the buyer's limit (`overLimit`), that it went to the administrators for approval.
 */
function toPlacedOrder(reply: FastifyReply, deps: PageDeps, orderNumber: string, placed: Placed, overLimit?: string): FastifyReply {
  setFlash(reply, overLimit === undefined ? placedFlash(orderNumber, placed) : submittedFlash(orderNumber, overLimit), deps.secure);
  return reply.redirect(`/orders/${encodeURIComponent(orderNumber)}`, 303);
}

/** A refused order: the first order of this basket version when the refusal says it was placed already, else the basket with the reasons. */
async function orderRefused(
  reply: FastifyReply, deps: PageDeps, buyer: SignedInBuyer, error: unknown, key: string, form: { shipToCode: string; customerReference: string },
): Promise<FastifyReply> {
  const refused = orderRefusal(error);
  if (refused === undefined) throw error;
  if (isKeyReused(error)) {
    // This basket version was ordered already, with another purchase-order number (the form sent
    // again after the number was changed): that first order stands, as for any repeated form.
    const first = await orderPlacedWithKey(deps.services.orders, buyer.accountNo, key);
    if (first !== undefined) return toPlacedOrder(reply, deps, first, 'placed');
  }
  return sendBasket(reply, deps, buyer, { status: refused.status, errors: refused.errors, form, refused: NOT_PLACED });
}

/**
 * Places the order for the basket version the buyer saw. The key derived from that version makes a
 * double click or a resubmitted form one order; the basket is emptied only after the order
 * committed and only if it is still that version, so nothing is lost.
 */
async function placeBasketOrder(reply: FastifyReply, deps: PageDeps, buyer: SignedInBuyer, form: PostedOrder): Promise<FastifyReply> {
  const owner = basketOwnerOf(buyer);
  const key = basketOrderKey(owner, form.version);
  const basket = await readBasket(deps.pool, owner);
  if (basket.version !== form.version) {
    // Already placed from that version (the form sent twice, the basket since emptied): its order.
    const placed = await orderPlacedWithKey(deps.services.orders, buyer.accountNo, key);
    return placed === undefined ? reply.redirect('/basket?done=changed', 303) : toPlacedOrder(reply, deps, placed, 'placed');
  }
  if (basket.lines.length === 0) return reply.redirect('/basket', 303);
  // A basket whose ship-to was never saved orders to the one the page priced it for (the account's default).
  const shipToCode = basket.shipToCode ?? form.pricedFor;
  if (shipToCode === null) {
    return sendBasket(reply, deps, buyer, { status: 400, errors: [{ field: 'shipToCode', message: 'Choose where to deliver the order and save it before placing the order' }] });
  }
  // The number on the page when it was posted; a form without the field orders with the saved one.
  const reference = form.typedReference === undefined ? basket.customerReference : form.typedReference || null;
  const body = { shipToCode, lines: basket.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })), ...(reference === null ? {} : { customerReference: reference }) };
  let placed: { orderNumber: string; replayed: boolean; overLimit?: string };
  try {
    placed = await placeOrder(deps.services.orders, buyer.accountNo, body, key, { userId: buyer.userId });
  } catch (error) {
    return orderRefused(reply, deps, buyer, error, key, { shipToCode, customerReference: reference ?? '' });
  }
  const emptied = await emptyOrderedBasket(deps.pool, owner, form.version);
  // A replayed answer whose basket is no longer that version: the first post emptied it.
  return toPlacedOrder(reply, deps, placed.orderNumber, !emptied && !placed.replayed ? 'kept' : 'placed', placed.overLimit);
}

/** The basket's page and every form of it: for a role that may order (modules/users/roles.ts). */
const orderingGuard = (deps: PageDeps) => ({ preHandler: [deps.guards.requireBuyer, deps.guards.requireCapability('order')] });

export async function basketRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = orderingGuard(deps);

  portal.get('/basket', { schema: { hide: true, querystring: DoneQuery }, ...guard }, async (request, reply) => {
    return sendBasket(reply, deps, buyerOf(request), { done: request.query.done, flash: takeFlash(request, reply, deps.secure) });
  });

  // "Update basket": every quantity at once (0 removes), or one line's remove button.
  portal.post('/basket/update', { schema: { hide: true, body: UpdateForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { lines, errors, typed } = readUpdateForm(request.body);
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

  // Delivery details: the ship-to (one of the account's) and the purchase-order number, kept with the basket.
  portal.post('/basket/checkout', { schema: { hide: true, body: CheckoutForm }, ...guard }, async (request, reply) => {
    return saveDelivery(reply, deps, buyerOf(request), (request.body.shipToCode ?? '').trim(), (request.body.customerReference ?? '').trim(), 'saved');
  });

  await placeOrderRoute(app, deps);
}

/** "Place order": a ship-to other than the one the page priced is saved and the basket shown priced for it. */
async function placeOrderRoute(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  portal.post('/basket/order', { schema: { hide: true, body: OrderForm }, ...orderingGuard(deps) }, async (request, reply) => {
    const buyer = buyerOf(request);
    const form = readOrderForm(request.body);
    if (!/^\d{1,19}$/.test(form.version)) return reply.redirect('/basket?done=changed', 303);
    if (form.chosen !== null && form.chosen !== form.pricedFor) {
      // Another ship-to than the page priced: freight and tax may differ, so save it and show the new price.
      const reference = form.typedReference ?? (await readBasket(deps.pool, basketOwnerOf(buyer))).customerReference ?? '';
      return saveDelivery(reply, deps, buyer, form.chosen, reference, 'repriced');
    }
    const tooLong = form.typedReference === undefined ? undefined : referenceError(form.typedReference);
    if (tooLong !== undefined) {
      const shown = { shipToCode: form.chosen ?? '', customerReference: form.typedReference ?? '' };
      return sendBasket(reply, deps, buyer, { status: 400, errors: [tooLong], form: shown, refused: NOT_PLACED });
    }
    return placeBasketOrder(reply, deps, buyer, form);
  });
}
