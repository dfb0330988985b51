-- Up Migration
-- A quick order finds a SKU typed in another letter case (`sku2` for `SKU2`): the lookup's
-- findSkusIgnoringCase (src/modules/lookup/lookup.repository.ts) compares lower(sku) with
-- lower(key), which the primary key cannot serve. This index holds the lowered SKUs; its expression
-- must be exactly the query's, or the planner will not use it. A product's SKU never changes in an
-- update (it is the key the upsert conflicts on), so updates stay HOT (1764000003500).
CREATE INDEX products_sku_lower_idx ON products (lower(sku));
