-- Up Migration
-- Search that costs little per query (issue 28 item 3), second round.
--
-- A combination of search_facet_groups (migration 1764000003900) keeps the columns the filters
-- compare lowercased, as search_documents keeps its lists (category_match, sizes_match). A search
-- without words but with filters tests every combination the account may see (~9,000 for the
-- bench's catalogue); lowercasing each one's brand, brand code, colour, gender and stratification
-- code as it was tested cost ~0.35 µs a column, more than the rest of the search. The statement
-- triggers that keep the rows name their columns, so these are filled as the rows are written.
ALTER TABLE search_facet_groups
  ADD COLUMN brand_match text GENERATED ALWAYS AS (lower(brand)) STORED,
  ADD COLUMN brand_code_match text GENERATED ALWAYS AS (lower(brand_code)) STORED,
  ADD COLUMN colour_match text GENERATED ALWAYS AS (lower(colour)) STORED,
  ADD COLUMN gender_match text GENERATED ALWAYS AS (lower(gender)) STORED,
  ADD COLUMN stratification_code_match text GENERATED ALWAYS AS (lower(stratification_code)) STORED;
