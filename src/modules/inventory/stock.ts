import { Type, type Static } from 'typebox';

/**
 * A SKU's stock as the public API shows it (decisions §4, "Stock"). It is computed once, when the
 * inventory snapshot is written, and stored beside the SKU (`inventory_items.stock_json`, in the
 * compact form of `encodeStock`), so a lookup of 100 SKUs reads 100 ready documents instead of
 * aggregating 500 location rows on every call. The inventory writer is the only writer of
 * locations, and it stores this in the same transaction as them, so the two never disagree.
 */
export const StockSchema = Type.Object({
  onHand: Type.Integer({ description: 'Total across all locations' }),
  reserved: Type.Integer({ description: 'Held against existing orders' }),
  byLocation: Type.Array(Type.Object({ locationCode: Type.String(), quantity: Type.Integer() })),
  incoming: Type.Array(Type.Object({ locationCode: Type.String(), quantity: Type.Integer(), expectedDate: Type.String({ format: 'date' }) }), {
    description: 'Every expected receipt with its location, by expectedDate',
  }),
});

export type Stock = Static<typeof StockSchema>;

export interface StockLocation {
  locationCode: string;
  onHand: number;
  reserved: number;
  incoming: ReadonlyArray<{ quantity: number; expectedDate: string }>;
}

/**
 * Units that can ship now: on hand less reserved, never below 0. The one rule for every reader of
 * stock: the quote's availability per line and the portal's cards and size grid.
 */
export function availableNow(stock: Pick<Stock, 'onHand' | 'reserved'>): number {
  return Math.max(0, stock.onHand - stock.reserved);
}

/** A SKU with no inventory pushed: nothing on hand, nothing expected. */
export const NO_STOCK: Stock = Object.freeze({ onHand: 0, reserved: 0, byLocation: Object.freeze([]), incoming: Object.freeze([]) }) as unknown as Stock;

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sums onHand and reserved, lists every location (by location code) with its quantity on hand,
 * and every expected receipt by date, then location. Orders compare code units, never a collation,
 * so the same snapshot always renders the same document.
 */
export function stockOf(locations: readonly StockLocation[]): Stock {
  const sorted = [...locations].sort((a, b) => byCodeUnits(a.locationCode, b.locationCode));
  const stock: Stock = { onHand: 0, reserved: 0, byLocation: [], incoming: [] };
  for (const location of sorted) {
    stock.onHand += location.onHand;
    stock.reserved += location.reserved;
    stock.byLocation.push({ locationCode: location.locationCode, quantity: location.onHand });
    for (const line of location.incoming) {
      stock.incoming.push({ locationCode: location.locationCode, quantity: line.quantity, expectedDate: line.expectedDate });
    }
  }
  stock.incoming.sort((a, b) => byCodeUnits(a.expectedDate, b.expectedDate) || byCodeUnits(a.locationCode, b.locationCode));
  return stock;
}

/**
 * The stored form is the API form itself: exactly the JSON text the lookup's response schema
 * renders for this stock (fields in schema order, no white space), so the lookup puts the stored
 * text into its answer as it is, without parsing it or building an object per location. It is the
 * larger form (~3 times the old compact arrays), but parsing and re-serialising 100 of them per
 * call cost the lookup more than the bytes do. Built field by field, so a stock object carrying
 * anything else never changes the text.
 */
export function encodeStock(stock: Stock): string {
  return JSON.stringify({
    onHand: stock.onHand,
    reserved: stock.reserved,
    byLocation: stock.byLocation.map((l) => ({ locationCode: l.locationCode, quantity: l.quantity })),
    incoming: stock.incoming.map((l) => ({ locationCode: l.locationCode, quantity: l.quantity, expectedDate: l.expectedDate })),
  });
}

/** The stock of stored text (`encodeStock`). */
export function decodeStock(text: string): Stock {
  return JSON.parse(text) as Stock;
}

/** The stored text of a SKU with no inventory pushed (`NO_STOCK`). */
export const NO_STOCK_TEXT = encodeStock(NO_STOCK);
