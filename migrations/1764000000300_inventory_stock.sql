-- Up Migration
-- The SKU's stock as the public lookup shows it, computed by the inventory writer whenever it
-- stores the SKU's locations (src/modules/inventory/stock.ts) and kept in the compact JSON form of
-- encodeStock: [onHand, reserved, [[locationCode, quantity], ...], [[locationCode, quantity,
-- expectedDate], ...]]. A lookup reads one small ready document per SKU. Text rather than jsonb:
-- it is only ever written whole and read whole, and text is compared (for changed_at) and sent
-- without conversion.
ALTER TABLE inventory_items ADD COLUMN stock_json text;

-- SKUs stored before this column: encoded here the way stock.ts encodes them.
UPDATE inventory_items i
   SET stock_json = (
     SELECT json_build_array(
              coalesce(sum(l.on_hand), 0),
              coalesce(sum(l.reserved), 0),
              coalesce(json_agg(json_build_array(l.location_code, l.on_hand) ORDER BY l.location_code COLLATE "C")
                         FILTER (WHERE l.sku IS NOT NULL), '[]'),
              coalesce((
                SELECT json_agg(json_build_array(x.location_code, (e.value->>'quantity')::integer, e.value->>'expectedDate')
                                ORDER BY e.value->>'expectedDate' COLLATE "C", x.location_code COLLATE "C")
                  FROM inventory_locations x, jsonb_array_elements(x.incoming) e
                 WHERE x.sku = i.sku), '[]'))::text
       FROM inventory_locations l
      WHERE l.sku = i.sku);

ALTER TABLE inventory_items ALTER COLUMN stock_json SET NOT NULL;
