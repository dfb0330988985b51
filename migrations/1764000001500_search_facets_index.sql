-- Up Migration
-- Searches without words (an empty query, filters only: browse by facet) read every document an
-- account may see, test its filters and count four facets over them.
--
-- 1. The category and size filters compare case-insensitively: testing each document's list
--    element by element (unnest, lower) cost ~20 ms over 20,000 documents. The lists lowercased are
--    kept beside them (generated, so the indexer's writes are unchanged) and tested with `&&`.
-- 2. The brand code as the entitlement rule compares it (brandKeySql: trimmed, blank for none) is
--    kept too: trimming every document's code in each search cost a third of reading them.
-- 3. The columns those searches read are in one index, so they are an index-only scan of a few
--    hundred pages instead of reading the table's rows (~1.7 kB each with the document, its
--    tsvector and suggest text): an empty query over 23,000 documents went from ~60 ms to ~25 ms
--    with the one-pass facet counting of search.queries.ts. It leads with (generation, blocked), so
--    it serves what search_documents_blocked did.
CREATE FUNCTION search_lower_all(list text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT ARRAY(SELECT lower(x) FROM unnest(list) x) $$;

ALTER TABLE search_documents
  ADD COLUMN category_match text[] GENERATED ALWAYS AS (search_lower_all(category)) STORED,
  ADD COLUMN sizes_match text[] GENERATED ALWAYS AS (search_lower_all(available_sizes)) STORED,
  ADD COLUMN brand_key text GENERATED ALWAYS AS (btrim(coalesce(brand_code, ''), E' \t\n\r\f\v')) STORED;

CREATE INDEX search_documents_facets ON search_documents (generation, blocked, brand_code)
  INCLUDE (id, brand_key, brand, colour, gender, stratification_code, category, category_match, sizes_match);
DROP INDEX search_documents_blocked;
