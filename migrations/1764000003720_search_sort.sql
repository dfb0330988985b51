-- Up Migration
-- Search sorted by name and by newest (issue 26): beside each document, what those orders read.
-- Neither is one of the document's 15 fields, so neither is in `document` (what the API serves).
--
-- * sort_name: the name a card shows (Description, else ProductNo) without accents, lowercased,
--   compared in byte order (search.documents.ts `sortName`), so pages are the same on every server.
-- * first_seen: when Portway first learned of the colourway, the earliest products.created_at of
--   its variants, to the millisecond (`firstSeenByKey`). created_at never moves on an upsert.
--
-- The indexer writes both from now on; documents indexed before are filled in here, from the
-- products their keys name (unaccent stands in for `sortName` until a document is next written).
ALTER TABLE search_documents ADD COLUMN sort_name text, ADD COLUMN first_seen timestamptz;

UPDATE search_documents d
   SET sort_name = lower(unaccent(coalesce(d.description, d.product_no))),
       first_seen = f.first_seen
  FROM (SELECT k.generation, k.doc_key, date_trunc('milliseconds', min(p.created_at)) AS first_seen
          FROM search_product_keys k JOIN products p ON p.sku = k.sku
         GROUP BY k.generation, k.doc_key) f
 WHERE f.generation = d.generation AND f.doc_key = d.id;
UPDATE search_documents SET sort_name = lower(unaccent(coalesce(description, product_no))) WHERE sort_name IS NULL;

-- Searches without words read the covering index of 1764000001500 and no table row; sorted by
-- name or by newest they read these two as well.
CREATE INDEX search_documents_facets_sorted ON search_documents (generation, blocked, brand_code)
  INCLUDE (id, brand_key, brand, colour, gender, stratification_code, category, category_match, sizes_match, sort_name, first_seen);
DROP INDEX search_documents_facets;
ALTER INDEX search_documents_facets_sorted RENAME TO search_documents_facets;
