import path from 'node:path';
import { Type } from 'typebox';
import type { Pool, Queryable } from '../../platform/db/pool.js';
import { defineHandler, enqueue, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import { mailTemplates } from '../../platform/mail-templates.js';
import { sendOnce, type Mailer } from '../../platform/mail.js';
import { PACKAGE_ROOT } from '../../platform/paths.js';
import { mailRecipient } from '../users/index.js';
import { findDespatchNotice, findMailedOrder } from './order-mail.repository.js';
import { confirmationMailData, despatchMailData } from './order-mail.view.js';
import type { DespatchStatus } from './orders.engine.js';

/**
 * The mail that keeps the buyer who placed an order informed: its confirmation, and a despatch
 * notice when it first becomes Part shipped and when it becomes Shipped. Each job is enqueued in
 * the transaction that causes it (the order stored; the update batch that raised the notice), under
 * a job key, and sends through sendOnce under a mail id of the order (and status), so a retried or
 * re-run job never mails twice (docs/decisions.md "Mail sent once", "Order mail").
 */

// Read from the checkout, as the portal's templates are (platform/paths.ts); every order mail job of the module uses them.
export const templates = mailTemplates(path.join(PACKAGE_ROOT, 'src', 'modules', 'orders', 'mail'));

/** The order number in an order mail job's payload. */
export const OrderNumber = Type.String({ pattern: '^[A-Za-z0-9]{1,20}$' });

export const orderConfirmation = {
  name: 'orders.confirmation-mail',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), orderNumber: OrderNumber }),
  maxAttempts: 25,
  jobKey: (p: { orderNumber: string }) => `orders.confirmation-mail:${p.orderNumber}`,
} satisfies JobType;

export const despatchNotice = {
  name: 'orders.despatch-notice',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), orderNumber: OrderNumber, status: Type.Union([Type.Literal('PartShipped'), Type.Literal('Shipped')]) }),
  maxAttempts: 25,
  jobKey: (p: { orderNumber: string; status: DespatchStatus }) => `orders.despatch-notice:${p.orderNumber}:${p.status}`,
} satisfies JobType;

export const confirmationMailId = (orderNumber: string) => `order-confirmation-${orderNumber}`;
export const despatchMailId = (orderNumber: string, status: DespatchStatus) => `despatch-notice-${orderNumber}-${status}`;

/** Call inside the transaction that stores an order a portal user placed. */
export async function enqueueOrderConfirmation(tx: Queryable, orderNumber: string): Promise<void> {
  await enqueue(tx, orderConfirmation, [{ orderNumber }]);
}

/** Call inside the transaction that records the notices. */
export async function enqueueDespatchNotices(tx: Queryable, notices: ReadonlyArray<{ orderNumber: string; status: DespatchStatus }>): Promise<void> {
  await enqueue(tx, despatchNotice, notices.map((n) => ({ orderNumber: n.orderNumber, status: n.status })));
}

export interface OrderMailDeps {
  pool: Pool;
  mailer: Mailer;
  publicUrl: string;
}

/**
 * The order, and whom its mail goes to: the portal user who placed it, while still linked to its
 * account. Undefined (nothing to send) for an order placed through the public API.
 */
async function orderAndRecipient(pool: Pool, orderNumber: string) {
  const order = await findMailedOrder(pool, orderNumber);
  if (order === undefined || order.placed_by_user_id === null) return undefined;
  const recipient = await mailRecipient(pool, order.placed_by_user_id, order.account_no);
  return recipient === undefined ? undefined : { order, recipient };
}

export function orderConfirmationHandler(deps: OrderMailDeps): JobHandler {
  return defineHandler(orderConfirmation, async ({ orderNumber }, { logger }) => {
    const found = await orderAndRecipient(deps.pool, orderNumber);
    if (found === undefined) {
      logger.info({ orderNumber }, 'order confirmation not sent: no portal user of the account placed the order');
      return;
    }
    const { order, recipient } = found;
    const sent = await sendOnce(deps.pool, deps.mailer, confirmationMailId(orderNumber), async () => {
      const data = confirmationMailData(order, recipient.name, deps.publicUrl);
      return { to: recipient.email, subject: data.subject, ...templates.render('order-confirmation', data) };
    });
    logger.info({ orderNumber, sent }, sent ? 'order confirmation sent' : 'order confirmation had been sent');
  });
}

/** Sent only while the user wants despatch notices: one raised while they are off is never sent. */
export function despatchNoticeHandler(deps: OrderMailDeps): JobHandler {
  return defineHandler(despatchNotice, async ({ orderNumber, status }, { logger }) => {
    const lines = await findDespatchNotice(deps.pool, orderNumber, status);
    const found = lines === undefined ? undefined : await orderAndRecipient(deps.pool, orderNumber);
    if (lines === undefined || found === undefined) {
      logger.info({ orderNumber, status }, 'despatch notice not sent: no portal user of the account placed the order');
      return;
    }
    const { order, recipient } = found;
    if (!recipient.despatchNotices) {
      logger.info({ orderNumber, status }, 'despatch notice not sent: the user turned despatch notices off');
      return;
    }
    const sent = await sendOnce(deps.pool, deps.mailer, despatchMailId(orderNumber, status), async () => {
      const data = despatchMailData(order, status, lines, recipient.name, deps.publicUrl);
      return { to: recipient.email, subject: data.subject, ...templates.render('despatch-notice', data) };
    });
    logger.info({ orderNumber, status, sent }, sent ? 'despatch notice sent' : 'despatch notice had been sent');
  });
}
