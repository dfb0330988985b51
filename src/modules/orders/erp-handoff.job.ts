import { Type } from 'typebox';
import { withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { defineHandler, enqueue, type JobHandler, type JobType } from '../../platform/jobs/job.js';
import type { ErpClient } from './erp.client.js';
import { acceptErpOrder, countErpAttempt, loadErpOrder, postponeErpOrder, refuseErpOrder } from './erp.repository.js';

/**
 * Hands a placed order to the ERP. The job is enqueued in the transaction that stores the order
 * (transactional outbox), so placing an order never waits for the ERP and an order the ERP has not
 * settled always has a job waiting for it.
 */
export const erpHandoff = {
  name: 'orders.erp-handoff',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), orderNumber: Type.String({ minLength: 1, maxLength: 20 }) }),
  // The queue's own retries only cover a failure of ours (the database gone mid-job); an ERP that
  // is down is retried by the handler, without limit, by scheduling the job again.
  maxAttempts: 25,
  jobKey: (p: { orderNumber: string }) => `orders.erp-handoff:${p.orderNumber}`,
} satisfies JobType;

/** Call inside the transaction that inserts the order. */
export async function enqueueErpHandoff(tx: Queryable, orderNumber: string): Promise<void> {
  await enqueue(tx, erpHandoff, [{ orderNumber }]);
}

/** min(maxMs, baseMs × 2^(attempts − 1)): the wait after the attempts-th failed attempt. */
export function erpRetryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  // 2^1100 is Infinity, which min() turns into maxMs: no overflow however long the ERP is down.
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
}

export interface ErpHandoffDeps {
  pool: Pool;
  client: ErpClient;
  retryBaseMs: number;
  retryMaxMs: number;
}

/**
 * One attempt per run. A Retry outcome keeps the order Queued and enqueues the same job key to run
 * after the back-off, in the transaction that records the failure: the retry exists exactly when
 * the failure is recorded. A run that finds the order settled does nothing, and a second hand-off
 * of the same order reaches the ERP under the same Idempotency-Key, which it answers with the same
 * document.
 */
export function erpHandoffHandler(deps: ErpHandoffDeps): JobHandler {
  return defineHandler(erpHandoff, async ({ orderNumber }, { logger }) => {
    const attempts = await countErpAttempt(deps.pool, orderNumber);
    if (attempts === undefined) {
      logger.debug({ orderNumber }, 'order not queued for the ERP (settled or unknown); nothing to send');
      return;
    }
    const order = await loadErpOrder(deps.pool, orderNumber);
    if (!order) return; // it was there to be counted; only a deletion since then gets here
    const outcome = await deps.client.submitOrder(order);
    const log = { orderNumber, attempts, erp: deps.client.name };

    if (outcome.kind === 'Accepted') {
      const stored = await acceptErpOrder(deps.pool, orderNumber, outcome.documentNo);
      logger.info({ ...log, documentNo: outcome.documentNo, stored }, 'order accepted by the ERP');
    } else if (outcome.kind === 'Refused') {
      const stored = await refuseErpOrder(deps.pool, orderNumber, outcome.reason);
      logger.warn({ ...log, reason: outcome.reason, stored }, 'order refused by the ERP');
    } else {
      const delayMs = erpRetryDelayMs(attempts, deps.retryBaseMs, deps.retryMaxMs);
      const nextAttemptAt = await withTransaction(deps.pool, async (tx) => {
        const next = await postponeErpOrder(tx, orderNumber, outcome.reason, delayMs);
        if (next) await enqueue(tx, erpHandoff, [{ orderNumber }], { runAt: next });
        return next;
      });
      logger.warn({ ...log, reason: outcome.reason, nextAttemptAt }, 'ERP hand-off failed; will try again');
    }
  });
}
