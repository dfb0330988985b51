import type { InventoryItem, LocationItem } from '../../src/modules/inventory/inventory.schemas.js';
import { seededRandom } from './catalogue.js';

/**
 * Generated stock for the inventory ingest benchmark: every SKU at the same five warehouses, with
 * seeded quantities and 0–2 expected receipts per location, so every run sends the same payload.
 */

export const INVENTORY_LOCATIONS = ['SYD', 'MEL', 'BNE', 'PER', 'ADL'] as const;

/** Receipts fall within four months of a fixed day, not of today, so the data never changes. */
const FIRST_RECEIPT_DAY = Date.UTC(2026, 0, 5);
const DAY_MS = 86_400_000;
const MAX_INCOMING = 2;

export function generateInventory(skus: readonly string[], seed = 20_251_203): InventoryItem[] {
  const random = seededRandom(seed);
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  return skus.map((sku) => ({
    sku,
    locations: INVENTORY_LOCATIONS.map((locationCode): LocationItem => {
      // About one location in five is out of stock; the others skew towards small quantities.
      const onHand = random() < 0.2 ? 0 : Math.floor(random() ** 2 * 500) + 1;
      const incomingCount = between(0, MAX_INCOMING);
      const days = Array.from({ length: incomingCount }, () => between(1, 120)).sort((a, b) => a - b);
      return {
        locationCode,
        onHand,
        reserved: Math.floor(random() * onHand * 0.3),
        incoming: days.map((d) => ({
          quantity: between(1, 50) * 6,
          expectedDate: new Date(FIRST_RECEIPT_DAY + d * DAY_MS).toISOString().slice(0, 10),
        })),
      };
    }),
  }));
}
