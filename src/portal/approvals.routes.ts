import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accountOverview } from '../modules/ledger/index.js';
import {
  approveOrder, declineOrder, DECLINE_REASON_MAX, listAwaitingApproval, type ApprovalFigures, type Order,
} from '../modules/orders/index.js';
import { accountOrder, orderNotFound } from './account-order.js';
import { actorOf, approvalRow, changedFigures } from './approvals.view.js';
import { setFlash, takeFlash } from './flash.js';
import { orderView } from './orders.view.js';
import type { PageDeps } from './portal.types.js';
import { approvalRefusal, isNotFound } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import { buyerOf, type SignedInBuyer } from './session.js';

/**
 * The Approvals pages (issue 27 item 3): the orders Buyers submitted over their order limit, for
 * the account's Administrators to approve (priced again then; changed figures shown old and new, to
 * confirm) or decline with a reason. The rules are the orders module's (approvals.service.ts).
 */

export const APPROVALS_PAGE_SIZE = 20;

const ListQuery = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })) });
const OrderParams = Type.Object({ orderNumber: Type.String({ minLength: 1, maxLength: 40 }) });
const CSRF = Type.Optional(Type.String({ maxLength: 200 }));
const ApproveForm = Type.Object({ _csrf: CSRF, confirmation: Type.Optional(Type.String({ maxLength: 100 })) });
// Longer than the limit, so that a reason too long is the page's message, not the bad-form page.
const DeclineForm = Type.Object({ _csrf: CSRF, reason: Type.Optional(Type.String({ maxLength: 4 * DECLINE_REASON_MAX })) });

interface ApprovalPageOptions {
  status?: number;
  errors?: FieldError[];
  reason?: string;
  changed?: { before: ApprovalFigures; now: ApprovalFigures; confirmation: string };
  problem?: string;
  notice?: string | undefined;
}

async function sendApproval(reply: FastifyReply, deps: PageDeps, buyer: SignedInBuyer, order: Order, options: ApprovalPageOptions = {}): Promise<FastifyReply> {
  const currency = deps.services.orders.currency;
  const account = await accountOverview(deps.services.account, buyer.accountNo);
  return sendPage(reply, 'approval', {
    title: `Approve order ${order.orderNumber}`,
    buyer,
    csrfToken: buyer.csrfToken,
    errors: options.errors,
    order: orderView(order, account, currency),
    awaiting: order.approval?.state === 'AwaitingApproval',
    reason: options.reason ?? '',
    maxReason: DECLINE_REASON_MAX,
    changed: options.changed === undefined ? undefined : { ...changedFigures(options.changed.before, options.changed.now, currency), confirmation: options.changed.confirmation },
    problem: options.problem,
    notice: options.notice,
  }, options.status ?? 200);
}


/** A refused approval or decline: the order's page again with what went wrong (or the changed figures to confirm). */
async function refused(reply: FastifyReply, deps: PageDeps, buyer: SignedInBuyer, orderNumber: string, error: unknown, reason = ''): Promise<FastifyReply> {
  if (isNotFound(error)) return orderNotFound(reply, buyer);
  const why = approvalRefusal(error);
  if (why === undefined) throw error;
  const order = await accountOrder(deps, buyer, orderNumber);
  if (order === undefined) return orderNotFound(reply, buyer);
  switch (why.kind) {
    case 'reason': return sendApproval(reply, deps, buyer, order, { status: why.status, errors: [{ field: 'reason', message: why.message }], reason });
    case 'changed': return sendApproval(reply, deps, buyer, order, { status: why.status, changed: why });
    case 'message': return sendApproval(reply, deps, buyer, order, { status: why.status, problem: why.message, reason });
  }
}

export async function approvalsRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: [deps.guards.requireBuyer, deps.guards.requireCapability('approve')] };
  const currency = deps.services.orders.currency;

  portal.get('/approvals', { schema: { hide: true, querystring: ListQuery }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const page = Number(request.query.page ?? '1');
    const result = await listAwaitingApproval(deps.services.orders, actorOf(buyer), page, APPROVALS_PAGE_SIZE);
    const pages = Math.max(1, Math.ceil(result.total / APPROVALS_PAGE_SIZE));
    return sendPage(reply, 'approvals', {
      title: page > 1 ? `Approvals (page ${page} of ${pages})` : 'Approvals',
      buyer,
      csrfToken: buyer.csrfToken,
      notice: takeFlash(request, reply, deps.secure),
      page,
      pages,
      total: result.total,
      orders: result.data.map((o) => approvalRow(o, currency)),
    });
  });

  portal.get('/approvals/:orderNumber', { schema: { hide: true, params: OrderParams }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const order = await accountOrder(deps, buyer, request.params.orderNumber);
    if (order === undefined || order.approval === null) return orderNotFound(reply, buyer);
    return sendApproval(reply, deps, buyer, order, { notice: takeFlash(request, reply, deps.secure) });
  });

  // "Approve" (and "Confirm and approve" with the confirmation of the new figures shown).
  portal.post('/approvals/:orderNumber/approve', { schema: { hide: true, params: OrderParams, body: ApproveForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { orderNumber } = request.params;
    try {
      const done = await approveOrder(deps.services.orders, actorOf(buyer), orderNumber, request.body.confirmation || undefined);
      setFlash(reply, `Order ${orderNumber} approved${done.repriced ? ' at the new figures' : ''}. It has been placed and its buyer told.`, deps.secure);
      return reply.redirect('/approvals', 303);
    } catch (error) {
      return refused(reply, deps, buyer, orderNumber, error);
    }
  });

  portal.post('/approvals/:orderNumber/decline', { schema: { hide: true, params: OrderParams, body: DeclineForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { orderNumber } = request.params;
    const reason = request.body.reason ?? '';
    try {
      await declineOrder(deps.services.orders, actorOf(buyer), orderNumber, reason);
      setFlash(reply, `Order ${orderNumber} declined. Its buyer has been told why.`, deps.secure);
      return reply.redirect('/approvals', 303);
    } catch (error) {
      return refused(reply, deps, buyer, orderNumber, error, reason);
    }
  });
}
