import type { Queryable } from '../../platform/db/pool.js';
import { defineSnapshot, defineTable } from '../../platform/db/upsert.js';
import type { InventoryItem } from './inventory.schemas.js';
import { encodeStock, stockOf } from './stock.js';

/**
 * The snapshot parent: its row lock makes concurrent snapshots of one SKU take turns, and it holds
 * the SKU's stock rendered for the lookup from the same locations the snapshot stores.
 */
const items = defineTable({
  table: 'inventory_items',
  columns: [['sku', 'sku', 'varchar(20)'], ['stockJson', 'stock_json', 'text']],
  key: ['sku'],
});

const locations = defineSnapshot({
  table: 'inventory_locations',
  columns: [
    ['sku', 'sku', 'varchar(20)'],
    ['locationCode', 'location_code', 'varchar(20)'],
    ['onHand', 'on_hand', 'integer'],
    ['reserved', 'reserved', 'integer'],
    ['incoming', 'incoming', 'jsonb'],
  ],
  key: ['sku', 'location_code'],
}, ['sku']);

/** SKUs in key order, then every location snapshot; `reserved` not sent means nothing reserved. */
export async function upsertInventory(tx: Queryable, batch: readonly InventoryItem[]): Promise<void> {
  const stored = batch.map((i) => ({
    sku: i.sku,
    locations: i.locations.map((l) => ({
      locationCode: l.locationCode,
      onHand: l.onHand,
      reserved: l.reserved ?? 0,
      // Only the two known fields are kept, in the order sent, so equal lists compare equal.
      incoming: (l.incoming ?? []).map((r) => ({ quantity: r.quantity, expectedDate: r.expectedDate })),
    })),
  }));
  await items.upsert(tx, stored.map((i) => ({ sku: i.sku, stockJson: encodeStock(stockOf(i.locations)) })));
  await locations.replace(
    tx,
    stored.map((i) => ({ sku: i.sku })),
    stored.flatMap((i) => i.locations.map((l) => ({ sku: i.sku, ...l }))),
  );
}
