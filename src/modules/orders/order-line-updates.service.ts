import type { Queryable } from '../../platform/db/pool.js';
import type { BatchDefinition } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import { watchDespatch } from './despatch-notices.service.js';
import { applyLineUpdates, lockOrderLines, type LockedLine } from './order-line-updates.repository.js';
import { OrderLineUpdateItemSchema, type OrderLineUpdateItem } from './orders.schemas.js';

/**
 * PUT /trading/order-line-updates (decisions §2): the ERP's running totals per order line, by
 * orderLineId (preferred) or by orderNumber with lineNumber. Quantities are totals, so a repeat
 * changes nothing; an update older than the one stored is ignored but answered Upserted, so
 * out-of-order delivery never moves a line backwards; charge lines are answered Upserted and
 * ignored; a line the service never issued is rejected. An update that takes an order a portal user
 * placed to Part shipped or Shipped raises a despatch notice (despatch-notices.service.ts).
 */

const hasId = (item: OrderLineUpdateItem): item is OrderLineUpdateItem & { orderLineId: string } =>
  item.orderLineId !== null && item.orderLineId !== undefined;

const present = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

function keyOf(item: OrderLineUpdateItem): string {
  return hasId(item) ? item.orderLineId : `${String(item.orderNumber)}/${String(item.lineNumber)}`;
}

function checkIdentification(item: OrderLineUpdateItem): ItemError[] {
  if (hasId(item)) return [];
  const number = present(item.orderNumber);
  const line = present(item.lineNumber);
  if (number && line) return [];
  if (!number && !line) {
    return [{ path: '', message: 'identify the line by orderLineId, or by orderNumber together with lineNumber' }];
  }
  return number
    ? [{ path: '/lineNumber', message: 'is required with orderNumber when orderLineId is not given' }]
    : [{ path: '/orderNumber', message: 'is required with lineNumber when orderLineId is not given' }];
}

/** The stored line each item names, or why it names none. */
function resolve(item: OrderLineUpdateItem, lines: Map<string, LockedLine>, byNumber: Map<string, LockedLine>): LockedLine | ItemError[] {
  if (hasId(item)) {
    const line = lines.get(item.orderLineId.toLowerCase());
    if (line === undefined) return [{ path: '/orderLineId', message: `no order line ${item.orderLineId} was issued by this service` }];
    if (present(item.orderNumber) && present(item.lineNumber)
        && (line.order_number !== item.orderNumber || line.line_number !== item.lineNumber)) {
      return [{ path: '/lineNumber', message: `orderNumber ${item.orderNumber} with lineNumber ${item.lineNumber} names another line than orderLineId ${item.orderLineId}` }];
    }
    return line;
  }
  const line = byNumber.get(`${String(item.orderNumber)}/${String(item.lineNumber)}`);
  if (line === undefined) {
    return [{ path: '/lineNumber', message: `order ${String(item.orderNumber)} has no line ${String(item.lineNumber)} issued by this service` }];
  }
  return line;
}

async function lockAll(tx: Queryable, items: readonly OrderLineUpdateItem[]) {
  const locked = await lockOrderLines(tx, {
    ids: items.filter(hasId).map((i) => i.orderLineId),
    numbers: items.filter((i) => !hasId(i)).map((i) => ({ orderNumber: String(i.orderNumber), lineNumber: Number(i.lineNumber) })),
  });
  const lines = new Map(locked.map((l) => [l.order_line_id, l]));
  const byNumber = new Map(locked.map((l) => [`${l.order_number}/${l.line_number}`, l]));
  return { lines, byNumber };
}

export const orderLineUpdateBatch: BatchDefinition<OrderLineUpdateItem> = {
  name: 'trading/order-line-updates',
  itemSchema: OrderLineUpdateItemSchema,
  keyFields: ['/orderLineId', '/orderNumber', '/lineNumber'],
  keyOf,
  check: checkIdentification,
  // Every occurrence is applied in request order (each against the line as the previous one left it).
  deduplicate: false,
  async checkStored(tx, items) {
    const { lines, byNumber } = await lockAll(tx, items);
    const refused = new Map<string, ItemError[]>();
    for (const item of items) {
      const found = resolve(item, lines, byNumber);
      if (Array.isArray(found)) refused.set(keyOf(item), found);
    }
    return refused;
  },
  async write(tx, items) {
    const { lines, byNumber } = await lockAll(tx, items);
    const updates: Array<{ line: LockedLine; item: OrderLineUpdateItem }> = [];
    for (const item of items) {
      const line = resolve(item, lines, byNumber);
      // Charge lines have no fulfilment lifecycle: accepted and ignored.
      if (!Array.isArray(line) && line.line_type === 'Item') updates.push({ line, item });
    }
    const raiseDespatchNotices = await watchDespatch(tx, updates.map((u) => u.line.order_number));
    await applyLineUpdates(tx, updates);
    await raiseDespatchNotices();
  },
};
