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
 * The stored form: `[onHand, reserved, [[locationCode, quantity], …], [[locationCode, quantity,
 * expectedDate], …]]`, JSON without the field names, which are most of the API form's bytes. A
 * lookup reads 100 of these per call, so their size is what the database sends and Node parses.
 */
type StoredStock = [number, number, Array<[string, number]>, Array<[string, number, string]>];

export function encodeStock(stock: Stock): string {
  const stored: StoredStock = [
    stock.onHand,
    stock.reserved,
    stock.byLocation.map((l) => [l.locationCode, l.quantity]),
    stock.incoming.map((l) => [l.locationCode, l.quantity, l.expectedDate]),
  ];
  return JSON.stringify(stored);
}

/** Makes (or finds) the parts of a decoded document; `decodeStock` makes new ones. */
export interface StockParts {
  location(locationCode: string, quantity: number): Stock['byLocation'][number];
  receipt(locationCode: string, quantity: number, expectedDate: string): Stock['incoming'][number];
}

const NEW_PARTS: StockParts = {
  location: (locationCode, quantity) => ({ locationCode, quantity }),
  receipt: (locationCode, quantity, expectedDate) => ({ locationCode, quantity, expectedDate }),
};

/** The API form of a stored document; it was written by `encodeStock`, so its shape is trusted. */
export function decodeStock(text: string, parts: StockParts = NEW_PARTS): Stock {
  const [onHand, reserved, locations, receipts] = JSON.parse(text) as StoredStock;
  const byLocation: Stock['byLocation'] = new Array(locations.length);
  for (let i = 0; i < locations.length; i += 1) {
    const [locationCode, quantity] = locations[i] as [string, number];
    byLocation[i] = parts.location(locationCode, quantity);
  }
  const incoming: Stock['incoming'] = new Array(receipts.length);
  for (let i = 0; i < receipts.length; i += 1) {
    const [locationCode, quantity, expectedDate] = receipts[i] as [string, number, string];
    incoming[i] = parts.receipt(locationCode, quantity, expectedDate);
  }
  return { onHand, reserved, byLocation, incoming };
}
