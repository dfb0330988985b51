import type { Queryable } from '../../platform/db/pool.js';
import { enqueueDespatchNotices } from './order-mail.job.js';
import { insertDespatchNotices, itemLinesOf, lockMailedOrders, type RaisedNotice } from './order-mail.repository.js';
import { despatchNotice } from './orders.engine.js';

/**
 * Despatch notices raised by an order-line update batch, in its transaction. Call before the batch
 * writes its lines (its line locks held), with the orders its items name; call what it returns
 * after the lines are written. Orders a portal user placed are locked and read before and after;
 * each that the batch took to Part shipped or Shipped (orders.engine.ts `despatchNotice`) gets a
 * notice recorded once per order and status, and the job that mails it, in the same transaction.
 */
export async function watchDespatch(tx: Queryable, orderNumbers: readonly string[]): Promise<() => Promise<void>> {
  const watched = await lockMailedOrders(tx, [...new Set(orderNumbers)].sort());
  if (watched.length === 0) return async () => undefined;
  const before = await itemLinesOf(tx, watched);
  return async () => {
    const after = await itemLinesOf(tx, watched);
    const notices: RaisedNotice[] = [];
    for (const orderNumber of watched) {
      const notice = despatchNotice(before.get(orderNumber) ?? [], after.get(orderNumber) ?? []);
      if (notice !== undefined) notices.push({ orderNumber, ...notice });
    }
    await enqueueDespatchNotices(tx, await insertDespatchNotices(tx, notices));
  };
}
