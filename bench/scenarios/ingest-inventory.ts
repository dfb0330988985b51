import type { InventoryItem } from '../../src/modules/inventory/inventory.schemas.js';
import { upsertInventory } from '../../src/modules/inventory/inventory.repository.js';
import { inventoryBatch } from '../../src/modules/inventory/inventory.service.js';
import { MAX_BATCH_ITEMS } from '../../src/platform/http/envelope.js';
import { chunk, generateCatalogue, loadLumaCatalogue } from '../lib/catalogue.js';
import { INGEST_OPTIONS, assertServiceAccepts, runIngest, type IngestSpec } from '../lib/ingest.js';
import { INVENTORY_LOCATIONS, generateInventory } from '../lib/inventory.js';
import type { Scenario } from '../lib/scenario.js';

/**
 * ingest-inventory: stock per SKU and location through real HTTP, against the baseline of the
 * same repository call (`upsertInventory(tx, items)`) made straight on the database — the method,
 * rounds, checks and report are bench/lib/ingest.ts's.
 *
 * Data: every SKU of the Luma catalogue followed by those of the generated catalogue (--items, as
 * for ingest; the Luma SKUs alone are too few to measure), each at five locations with seeded
 * stock and 0–2 incoming lines per location (bench/lib/inventory.ts); batches of 1,000, the Luma
 * part warming up both paths. Tables: inventory_items and inventory_locations.
 */

/** What is written and how (the baseline's worker thread imports it). */
export const spec: IngestSpec<InventoryItem> = {
  module: import.meta.url,
  name: 'ingest-inventory',
  path: '/inventory',
  tables: [
    { name: 'inventory_items', key: ['sku'] },
    { name: 'inventory_locations', key: ['sku', 'location_code'] },
  ],
  keyOf: inventoryBatch.keyOf,
  write: upsertInventory,
};

const scenario: Scenario = {
  name: 'ingest-inventory',
  description: 'Inventory upsert (SKUs × 5 locations): HTTP (PUT /api/integration/inventory) against a straight SQL baseline',
  options: INGEST_OPTIONS,
  run(ctx) {
    return runIngest(ctx, spec, () => {
      ctx.progress('loading the Luma catalogue, generating the large one and their stock');
      const luma = loadLumaCatalogue();
      const generated = generateCatalogue(luma, ctx.generatedItems);
      // One seed per part, so the Luma part's stock does not depend on --items.
      const lumaStock = generateInventory(luma.map((p) => p.sku), 20_251_203);
      const generatedStock = generateInventory(generated.map((p) => p.sku), 20_251_204);
      const stock = [...lumaStock, ...generatedStock];
      assertServiceAccepts(inventoryBatch, stock);
      const lumaBatches = chunk(lumaStock, MAX_BATCH_ITEMS);
      const locations = stock.reduce((sum, i) => sum + i.locations.length, 0);
      const incoming = stock.reduce((sum, i) => sum + i.locations.reduce((n, l) => n + (l.incoming?.length ?? 0), 0), 0);
      return {
        batches: [...lumaBatches, ...chunk(generatedStock, MAX_BATCH_ITEMS)],
        warmUp: { batches: lumaBatches.length, label: 'the Luma batches' },
        summary: `${stock.length.toLocaleString('en-US')} SKUs (Luma ${luma.length.toLocaleString('en-US')} + generated ` +
          `${generated.length.toLocaleString('en-US')}) at ${INVENTORY_LOCATIONS.length} locations (${INVENTORY_LOCATIONS.join(', ')}): ` +
          `${locations.toLocaleString('en-US')} location rows, ${incoming.toLocaleString('en-US')} incoming lines`,
        expectedRows: { inventory_items: stock.length, inventory_locations: locations },
        json: { locations, incoming_lines: incoming },
      };
    });
  },
};

export default scenario;
