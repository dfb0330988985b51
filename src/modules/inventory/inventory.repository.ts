import type { Queryable } from '../../platform/db/pool.js';
import { defineSnapshot, defineTable } from '../../platform/db/upsert.js';
import type { InventoryItem } from './inventory.schemas.js';

// The parent row exists only to be locked: concurrent snapshots of one SKU take turns on it.
const items = defineTable({ table: 'inventory_items', columns: [['sku', 'sku', 'varchar(20)']], key: ['sku'] });

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
  await items.upsert(tx, batch);
  await locations.replace(
    tx,
    batch.map((i) => ({ sku: i.sku })),
    batch.flatMap((i) => i.locations.map((l) => ({
      sku: i.sku,
      locationCode: l.locationCode,
      onHand: l.onHand,
      reserved: l.reserved ?? 0,
      // Only the two known fields are kept, in the order sent, so equal lists compare equal.
      incoming: (l.incoming ?? []).map((r) => ({ quantity: r.quantity, expectedDate: r.expectedDate })),
    }))),
  );
}
