import type { FastifyReply } from 'fastify';
import { getOrder, type Order } from '../modules/orders/index.js';
import { MESSAGES, sendMessage } from './pages.js';
import type { PageDeps } from './portal.types.js';
import { isNotFound } from './refusals.js';
import type { SignedInBuyer } from './session.js';

/**
 * The account's order as the portal's order pages read it (its page, Order again, withdraw, the
 * approver's page): whatever its approval state, since the portal shows orders awaiting approval,
 * declined and withdrawn to their buyer and the approvers. Undefined when there is none: another
 * account's order reads exactly like one that does not exist, the 404 page of `orderNotFound`.
 */
export async function accountOrder(deps: PageDeps, buyer: SignedInBuyer, orderNumber: string): Promise<Order | undefined> {
  try {
    return await getOrder(deps.services.orders, buyer.accountNo, orderNumber, { unplaced: true });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export const orderNotFound = (reply: FastifyReply, buyer: SignedInBuyer): FastifyReply =>
  sendMessage(reply, 404, MESSAGES.notFound, buyer, buyer.csrfToken);
