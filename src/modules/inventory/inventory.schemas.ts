import { Type, type Static } from 'typebox';
import { MAX_INT4, optionalInteger, requiredDate, requiredInteger, requiredString } from '../../platform/schema/fields.js';

/** The payload of decisions §2: `{sku, locations: [{locationCode, onHand, reserved?, incoming?}]}`. */
export const IncomingSchema = Type.Object({
  quantity: requiredInteger(0, MAX_INT4),
  expectedDate: requiredDate(),
}, { description: 'A receipt expected at the location' });

export const LocationSchema = Type.Object({
  locationCode: requiredString(20),
  onHand: requiredInteger(0, MAX_INT4),
  reserved: optionalInteger(0, MAX_INT4),
  incoming: Type.Optional(Type.Unsafe<Array<Static<typeof IncomingSchema>> | null>({
    type: ['array', 'null'],
    items: IncomingSchema,
    description: 'Replaced as a whole on every push; not sent (or null) means none',
  })),
}, { description: 'Stock of the SKU at one location' });

export const InventoryItemSchema = Type.Object({
  sku: requiredString(20),
  locations: Type.Array(LocationSchema, {
    description: 'A snapshot: locations stored but not sent are removed; [] removes all',
  }),
}, { description: 'Inventory of one SKU across locations' });

export type InventoryItem = Static<typeof InventoryItemSchema>;
export type LocationItem = Static<typeof LocationSchema>;
