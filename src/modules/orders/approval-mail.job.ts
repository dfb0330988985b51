import { Type } from 'typebox';
import type { Pool, Queryable } from '../../platform/db/pool.js';
import { defineHandler, enqueue, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import { sendOnce, type Mailer } from '../../platform/mail.js';
import { mailRecipient, may } from '../users/index.js';
import { activeMembers } from './approvals.repository.js';
import { OrderNumber, templates } from './order-mail.job.js';
import { findMailedOrder } from './order-mail.repository.js';
import { approvalRequestMailData, decisionMailData } from './order-mail.view.js';

/**
 * The mail of order approval (issue 27): an order submitted for approval goes to each active
 * person of the account who may approve orders; its buyer hears when it is approved or declined.
 * Each job is enqueued in the transaction that submits, approves or declines the order, under a job
 * key, and sends through sendOnce under a mail id of the order (and recipient), so a retried or
 * re-run job never mails anyone twice (docs/decisions.md "Mail sent once", "Orders over a limit").
 */

export const approvalRequest = {
  name: 'orders.approval-request-mail',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), orderNumber: OrderNumber }),
  maxAttempts: 25,
  jobKey: (p: { orderNumber: string }) => `orders.approval-request-mail:${p.orderNumber}`,
} satisfies JobType;

export type Decision = 'Approved' | 'Declined';

export const approvalDecision = {
  name: 'orders.approval-decision-mail',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), orderNumber: OrderNumber, decision: Type.Union([Type.Literal('Approved'), Type.Literal('Declined')]) }),
  maxAttempts: 25,
  jobKey: (p: { orderNumber: string; decision: Decision }) => `orders.approval-decision-mail:${p.orderNumber}:${p.decision}`,
} satisfies JobType;

export const approvalRequestMailId = (orderNumber: string, userId: string) => `approval-request-${orderNumber}-${userId}`;
export const decisionMailId = (orderNumber: string, decision: Decision) => `order-${decision.toLowerCase()}-${orderNumber}`;

/** Call inside the transaction that stores the order submitted for approval. */
export async function enqueueApprovalRequest(tx: Queryable, orderNumber: string): Promise<void> {
  await enqueue(tx, approvalRequest, [{ orderNumber }]);
}

/** Call inside the transaction that approves or declines the order. */
export async function enqueueDecisionMail(tx: Queryable, orderNumber: string, decision: Decision): Promise<void> {
  await enqueue(tx, approvalDecision, [{ orderNumber, decision }]);
}

export interface ApprovalMailDeps {
  pool: Pool;
  mailer: Mailer;
  publicUrl: string;
}

/** One mail to each active person of the account who may approve orders, while the order still awaits approval. */
export function approvalRequestHandler(deps: ApprovalMailDeps): JobHandler {
  return defineHandler(approvalRequest, async ({ orderNumber }, { logger }) => {
    const order = await findMailedOrder(deps.pool, orderNumber);
    if (order === undefined || order.approval_state !== 'AwaitingApproval') {
      logger.info({ orderNumber }, 'approval request not sent: the order no longer awaits approval');
      return;
    }
    const approvers = (await activeMembers(deps.pool, order.account_no)).filter((m) => may(m.role, 'approve'));
    let sent = 0;
    for (const approver of approvers) {
      const done = await sendOnce(deps.pool, deps.mailer, approvalRequestMailId(orderNumber, approver.userId), async () => {
        const data = approvalRequestMailData(order, approver.name, deps.publicUrl);
        return { to: approver.email, subject: data.subject, ...templates.render('approval-request', data) };
      });
      if (done) sent += 1;
    }
    logger.info({ orderNumber, approvers: approvers.length, sent }, 'approval request mailed');
  });
}

/** The buyer who submitted the order, while still active in its account: approved (with the order as placed) or declined (with the reason). */
export function approvalDecisionHandler(deps: ApprovalMailDeps): JobHandler {
  return defineHandler(approvalDecision, async ({ orderNumber, decision }, { logger }) => {
    const order = await findMailedOrder(deps.pool, orderNumber);
    const recipient = order?.placed_by_user_id ? await mailRecipient(deps.pool, order.placed_by_user_id, order.account_no) : undefined;
    if (order === undefined || recipient === undefined) {
      logger.info({ orderNumber, decision }, 'approval decision not mailed: its buyer is no longer a user of the account');
      return;
    }
    const sent = await sendOnce(deps.pool, deps.mailer, decisionMailId(orderNumber, decision), async () => {
      const data = decisionMailData(order, decision, recipient.name, deps.publicUrl);
      return { to: recipient.email, subject: data.subject, ...templates.render(decision === 'Approved' ? 'order-approved' : 'order-declined', data) };
    });
    logger.info({ orderNumber, decision, sent }, sent ? 'approval decision mailed' : 'approval decision had been mailed');
  });
}
