import type { BatchDefinition } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import { upsertInventory } from './inventory.repository.js';
import { InventoryItemSchema, type InventoryItem } from './inventory.schemas.js';

function checkInventory(item: InventoryItem): ItemError[] {
  const problems: ItemError[] = [];
  const seen = new Map<string, number>();
  item.locations.forEach((l, i) => {
    const first = seen.get(l.locationCode);
    if (first === undefined) seen.set(l.locationCode, i);
    else problems.push({ path: `/locations/${i}/locationCode`, message: `duplicates /locations/${first}/locationCode ("${l.locationCode}"); each location appears once` });
  });
  return problems;
}

export const inventoryBatch: BatchDefinition<InventoryItem> = {
  name: 'inventory',
  itemSchema: InventoryItemSchema,
  keyFields: ['/sku'],
  keyOf: (item) => item.sku,
  check: checkInventory,
  result: (item, key) => ({
    key,
    outcome: 'Upserted',
    children: item.locations.map((l) => ({ key: l.locationCode, outcome: 'Upserted' as const })),
  }),
  write: upsertInventory,
};
