import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accountOverview } from '../modules/ledger/index.js';
import { getOrder, listAccountOrders, type Order } from '../modules/orders/index.js';
import type { PageRoutesDeps } from './basket.routes.js';
import { formatDate, formatMoney, formatQuantity } from './format.js';
import { MESSAGES, sendMessage } from './pages.js';
import { isNotFound } from './refusals.js';
import { sendPage } from './render.js';
import { buyerOf } from './session.js';

/** The account's orders and one order, statuses derived from the quantities on every read (decisions §3). */

export const ORDERS_PAGE_SIZE = 20;

const STATUS_WORDS: Record<Order['status'], string> = {
  Pending: 'Pending', Invoiced: 'Invoiced', PartShipped: 'Part shipped', Shipped: 'Shipped', Cancelled: 'Cancelled',
};
export const statusWords = (status: Order['status']): string => STATUS_WORDS[status] ?? status;

/** The ERP hand-off in words. */
export function erpWords(erp: Order['erp']): string {
  if (erp.state === 'Accepted') return erp.documentNo === null ? 'Accepted by our order system' : `Accepted by our order system as ${erp.documentNo}`;
  if (erp.state === 'Refused') return `Refused by our order system: ${erp.reason ?? 'no reason given'}. Contact your account manager.`;
  return 'Queued: waiting to be sent to our order system';
}

// Query strings are text here (no coercion in the portal's scope): a page is 1 to 9999, anything else the 400 page.
const ListQuery = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })) });
const OrderParams = Type.Object({ orderNumber: Type.String({ minLength: 1, maxLength: 40 }) });
const PlacedQuery = Type.Object({ placed: Type.Optional(Type.String({ maxLength: 10 })) });

export async function ordersRoutes(app: FastifyInstance, deps: PageRoutesDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: deps.guards.requireBuyer };
  const currency = deps.services.orders.currency;

  portal.get('/orders', { schema: { hide: true, querystring: ListQuery }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const page = Number(request.query.page ?? '1');
    const result = await listAccountOrders(deps.services.orders, buyer.accountNo, page, ORDERS_PAGE_SIZE);
    const pages = Math.max(1, Math.ceil(result.total / ORDERS_PAGE_SIZE));
    return sendPage(reply, 'orders', {
      title: page > 1 ? `Your orders (page ${page} of ${pages})` : 'Your orders',
      buyer,
      csrfToken: buyer.csrfToken,
      page,
      pages,
      total: result.total,
      orders: result.data.map((o) => ({
        orderNumber: o.orderNumber,
        placed: formatDate(o.placedAt),
        reference: o.customerReference,
        status: statusWords(o.status),
        total: formatMoney(o.totals.total, currency),
      })),
    });
  });

  portal.get('/orders/:orderNumber', { schema: { hide: true, params: OrderParams, querystring: PlacedQuery }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    let order: Order;
    try {
      order = await getOrder(deps.services.orders, buyer.accountNo, request.params.orderNumber);
    } catch (error) {
      // Another account's order reads exactly like one that does not exist.
      if (isNotFound(error)) return sendMessage(reply, 404, MESSAGES.notFound, buyer, buyer.csrfToken);
      throw error;
    }
    const account = await accountOverview(deps.services.account, buyer.accountNo);
    const shipTo = account.shipToAddresses.find((s) => s.shipToCode === order.shipToCode);
    return sendPage(reply, 'order', {
      title: `Order ${order.orderNumber}`,
      buyer,
      csrfToken: buyer.csrfToken,
      placed: request.query.placed,
      order: {
        orderNumber: order.orderNumber,
        placedAt: formatDate(order.placedAt),
        reference: order.customerReference,
        status: statusWords(order.status),
        erp: erpWords(order.erp),
        shipToCode: order.shipToCode,
        shipTo: shipTo === undefined ? null : [shipTo.shipToName, shipTo.shipToAddress1, shipTo.shipToAddress2, shipTo.shipToCity, shipTo.shipToState, shipTo.shipToPostCode, shipTo.shipToCountryRegionCode].filter(Boolean).join(', '),
        lines: order.lines.map((l) => ({
          lineNumber: l.lineNumber,
          sku: l.sku,
          description: l.description,
          ordered: formatQuantity(l.quantity),
          invoiced: formatQuantity(l.invoicedQuantity),
          shipped: formatQuantity(l.shippedQuantity),
          cancelled: formatQuantity(l.cancelledQuantity),
          status: statusWords(l.status),
          unitPrice: formatMoney(l.unitPrice, currency),
          lineAmount: formatMoney(l.lineAmount, currency),
          tax: formatMoney(l.taxAmount, currency),
        })),
        charges: order.charges.map((c) => ({ description: c.description, amount: formatMoney(c.amount, currency), tax: formatMoney(c.taxAmount, currency) })),
        totals: {
          net: formatMoney(order.totals.net, currency),
          tax: formatMoney(order.totals.tax, currency),
          freight: formatMoney(order.totals.freight, currency),
          total: formatMoney(order.totals.total, currency),
        },
      },
    });
  });
}
