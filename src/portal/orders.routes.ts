import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { reorderLines } from '../modules/baskets/index.js';
import { accountOverview } from '../modules/ledger/index.js';
import { listAccountOrders, withdrawOrder } from '../modules/orders/index.js';
import { colourwaysOfSkus } from '../modules/search/index.js';
import { accountOrder, orderNotFound } from './account-order.js';
import { setFlash, takeFlash } from './flash.js';
import { orderFlash, orderRow, orderView } from './orders.view.js';
import type { PageDeps } from './portal.types.js';
import { approvalRefusal, isNotFound } from './refusals.js';
import { reorderMessage } from './reorder.view.js';
import { sendPage } from './render.js';
import { actorOf } from './approvals.view.js';
import { basketOwnerOf, buyerOf } from './session.js';

/** The account's orders and one order, statuses derived from the quantities on every read (decisions §3). */

export const ORDERS_PAGE_SIZE = 20;

// Query strings are text here (no coercion in the portal's scope): a page is 1 to 9999, anything else the 400 page.
const ListQuery = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })) });
const OrderParams = Type.Object({ orderNumber: Type.String({ minLength: 1, maxLength: 40 }) });
const ReorderForm = Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) });


export async function ordersRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: deps.guards.requireBuyer };
  const currency = deps.services.orders.currency;

  portal.get('/orders', { schema: { hide: true, querystring: ListQuery }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const page = Number(request.query.page ?? '1');
    const result = await listAccountOrders(deps.services.orders, buyer.accountNo, page, ORDERS_PAGE_SIZE, { unplaced: true });
    const pages = Math.max(1, Math.ceil(result.total / ORDERS_PAGE_SIZE));
    const title = page > 1 ? `Your orders (page ${page} of ${pages})` : 'Your orders';
    const orders = result.data.map((o) => orderRow(o, currency));
    return sendPage(reply, 'orders', { title, buyer, csrfToken: buyer.csrfToken, page, pages, total: result.total, orders });
  });

  portal.get('/orders/:orderNumber', { schema: { hide: true, params: OrderParams }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const order = await accountOrder(deps, buyer, request.params.orderNumber);
    if (order === undefined) return orderNotFound(reply, buyer);
    const [account, colourways] = await Promise.all([
      accountOverview(deps.services.account, buyer.accountNo),
      colourwaysOfSkus(deps.services.current.search, buyer.accountNo, order.lines.map((l) => l.sku)),
    ]);
    const view = orderView(order, account, currency, colourways, { mayWithdraw: order.placedBy !== null && order.placedBy.email === buyer.email });
    // "Order placed" once, after the basket's form (basket.routes.ts): a reload shows the order alone.
    const flash = orderFlash(takeFlash(request, reply, deps.secure), order.orderNumber, currency);
    // The form posted again after an order went for approval: the same order, still not placed.
    if (flash.placed !== undefined && !view.placed) {
      delete flash.placed;
      flash.submitted = 'Your order is over your limit, so it has been sent to your account\'s administrators for approval.';
    }
    return sendPage(reply, 'order', { title: `Order ${order.orderNumber}`, buyer, csrfToken: buyer.csrfToken, ...flash, order: view });
  });

  // "Withdraw": the buyer who submitted an order for approval takes it back while it awaits approval.
  portal.post('/orders/:orderNumber/withdraw', { schema: { hide: true, params: OrderParams, body: ReorderForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    try {
      await withdrawOrder(deps.services.orders, actorOf(buyer), request.params.orderNumber);
    } catch (error) {
      if (isNotFound(error)) return orderNotFound(reply, buyer);
      const refused = approvalRefusal(error);
      if (refused === undefined) throw error;
      setFlash(reply, refused.kind === 'message' ? refused.message : 'The order could not be withdrawn.', deps.secure);
      return reply.redirect(`/orders/${encodeURIComponent(request.params.orderNumber)}`, 303);
    }
    setFlash(reply, `Order ${request.params.orderNumber} has been withdrawn. It will not be placed.`, deps.secure);
    return reply.redirect(`/orders/${encodeURIComponent(request.params.orderNumber)}`, 303);
  });

  // "Order again": the order's lines as ordered, added to the basket at today's prices; then the
  // basket (post, redirect, get), so a reload adds nothing twice.
  // Every role sees the orders; only one that may order (not a Viewer) orders again.
  const ordering = { preHandler: [deps.guards.requireBuyer, deps.guards.requireCapability('order')] };
  portal.post('/orders/:orderNumber/reorder', { schema: { hide: true, params: OrderParams, body: ReorderForm }, ...ordering }, async (request, reply) => {
    const buyer = buyerOf(request);
    const order = await accountOrder(deps, buyer, request.params.orderNumber);
    if (order === undefined) return orderNotFound(reply, buyer);
    const lines = order.lines.map(({ sku, quantity }) => ({ sku, quantity }));
    const result = await reorderLines({ pool: deps.pool, lookup: deps.services.current.lookup }, basketOwnerOf(buyer), lines);
    setFlash(reply, reorderMessage(order.orderNumber, result), deps.secure);
    return reply.redirect('/basket', 303);
  });
}
