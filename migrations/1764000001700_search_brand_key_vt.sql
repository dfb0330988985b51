-- Up Migration
-- search_documents.brand_key (migration 1764000001500) trimmed with E' \t\n\r\f\v', which
-- PostgreSQL 15 reads with the letter v in place of the vertical tab: a brand code beginning or
-- ending in "v" lost it, and one padded with a vertical tab kept it, so the entitlement tested
-- against brand_key disagreed with the lookup's. A generated column's expression cannot be changed
-- before PostgreSQL 17, so the column is made again, with the tab written \x0B, and its index.
DROP INDEX search_documents_facets;
ALTER TABLE search_documents DROP COLUMN brand_key;
ALTER TABLE search_documents
  ADD COLUMN brand_key text GENERATED ALWAYS AS (btrim(coalesce(brand_code, ''), E' \t\n\r\f\x0B')) STORED;
CREATE INDEX search_documents_facets ON search_documents (generation, blocked, brand_code)
  INCLUDE (id, brand_key, brand, colour, gender, stratification_code, category, category_match, sizes_match);
