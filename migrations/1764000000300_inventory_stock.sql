-- Up Migration
-- The SKU's stock as the public lookup shows it, rendered by the inventory writer whenever it
-- stores the SKU's locations (src/modules/inventory/stock.ts): JSON text, so a lookup reads one
-- ready document per SKU. Kept as text rather than jsonb: it is only ever written whole and read
-- whole, and text is compared (for changed_at) and sent without conversion.
ALTER TABLE inventory_items ADD COLUMN stock_json text;

-- SKUs stored before this column: rendered here the way stock.ts renders them.
UPDATE inventory_items i
   SET stock_json = (
     SELECT json_build_object(
              'onHand', coalesce(sum(l.on_hand), 0),
              'reserved', coalesce(sum(l.reserved), 0),
              'byLocation', coalesce(json_agg(json_build_object('locationCode', l.location_code, 'quantity', l.on_hand)
                                              ORDER BY l.location_code COLLATE "C") FILTER (WHERE l.sku IS NOT NULL), '[]'),
              'incoming', coalesce((
                SELECT json_agg(json_build_object('locationCode', x.location_code, 'quantity', (e.value->>'quantity')::integer,
                                                  'expectedDate', e.value->>'expectedDate')
                                ORDER BY e.value->>'expectedDate' COLLATE "C", x.location_code COLLATE "C")
                  FROM inventory_locations x, jsonb_array_elements(x.incoming) e
                 WHERE x.sku = i.sku), '[]'))::text
       FROM inventory_locations l
      WHERE l.sku = i.sku);

ALTER TABLE inventory_items ALTER COLUMN stock_json SET NOT NULL;
