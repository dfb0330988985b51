-- Up Migration
-- inventory_items.stock_json now holds the SKU's stock in the API form, as the exact text the
-- lookup's response schema renders for it (src/modules/inventory/stock.ts, encodeStock):
-- {"onHand":N,"reserved":N,"byLocation":[{"locationCode":"…","quantity":N},…],
--  "incoming":[{"locationCode":"…","quantity":N,"expectedDate":"YYYY-MM-DD"},…]}
-- with no white space, locations by code (code units), receipts by date, then location, then the
-- order sent. The lookup copies it into its answer without parsing it. Every stored SKU is rendered
-- again here from its locations, the source of truth, the way the writer renders it; to_json
-- escapes a string as JSON.stringify does. The update stamps changed_xid, so a running lookup
-- reads every SKU again rather than trusting what it decoded from the old form.
UPDATE inventory_items i
   SET stock_json = (
     SELECT '{"onHand":' || coalesce(sum(l.on_hand), 0)
            || ',"reserved":' || coalesce(sum(l.reserved), 0)
            || ',"byLocation":[' || coalesce(string_agg(
                 '{"locationCode":' || to_json(l.location_code)::text || ',"quantity":' || l.on_hand || '}', ','
                 ORDER BY l.location_code COLLATE "C"), '')
            || '],"incoming":[' || coalesce((
                 SELECT string_agg(
                          '{"locationCode":' || to_json(x.location_code)::text
                          || ',"quantity":' || (e.value->>'quantity')::integer
                          || ',"expectedDate":' || to_json(e.value->>'expectedDate')::text || '}', ','
                          ORDER BY e.value->>'expectedDate' COLLATE "C", x.location_code COLLATE "C", e.ordinality)
                   FROM inventory_locations x, jsonb_array_elements(x.incoming) WITH ORDINALITY e
                  WHERE x.sku = i.sku), '')
            || ']}'
       FROM inventory_locations l
      WHERE l.sku = i.sku);
