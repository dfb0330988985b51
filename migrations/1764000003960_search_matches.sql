-- Up Migration
-- Search that costs little per query (issue 28 item 3), second round: a narrow table to match in.
--
-- A search with words reads every document its words match (thousands for a common word) to test
-- entitlement, rank it and group it for the facet counts. It read them from search_documents,
-- whose rows carry the whole document (~2.8 kB; the descriptions twice more in `suggest` and
-- `suggest_words`): about four rows to a page, and each row's columns walked to reach the few it
-- needs. search_matches holds one row per unblocked document (blocked ones are never found) with
-- only what matching, entitlement, ranking, the filters, the facets and the sorts read; the wide
-- row is read for the documents of the page alone. On the bench's catalogue a one-word search cost
-- PostgreSQL 25–40% less CPU.
CREATE TABLE search_matches (
  generation           integer NOT NULL,
  id                   text NOT NULL,
  brand_code           text,
  brand_key            text NOT NULL,
  brand                text,
  colour               text NOT NULL,
  gender               text,
  category             text[] NOT NULL,
  category_match       text[] NOT NULL,
  stratification_code  text,
  sizes_match          text[] NOT NULL,
  sort_name            text,
  first_seen           timestamptz,
  search               tsvector NOT NULL,
  PRIMARY KEY (generation, id)
);
-- The tsvector is what matching and ranking read: in the row, not in the TOAST table.
ALTER TABLE search_matches ALTER COLUMN search SET STORAGE MAIN;

-- Statement triggers keep the rows with the documents, in the transaction that writes them. An
-- update removes a document's row and writes it again (it may have been blocked or unblocked).
-- Creating them locks search_documents against writes until this migration commits, so the copy
-- below, made after them, misses no document an older process writes meanwhile.
CREATE FUNCTION search_matches_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_matches (generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
                              stratification_code, sizes_match, sort_name, first_seen, search)
  SELECT generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
         stratification_code, sizes_match, sort_name, first_seen, search
    FROM new_documents WHERE NOT blocked;
  RETURN NULL;
END $$;

CREATE FUNCTION search_matches_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_matches m USING old_documents o WHERE m.generation = o.generation AND m.id = o.id;
  RETURN NULL;
END $$;

CREATE FUNCTION search_matches_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_matches m USING old_documents o WHERE m.generation = o.generation AND m.id = o.id;
  INSERT INTO search_matches (generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
                              stratification_code, sizes_match, sort_name, first_seen, search)
  SELECT generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
         stratification_code, sizes_match, sort_name, first_seen, search
    FROM new_documents WHERE NOT blocked;
  RETURN NULL;
END $$;

CREATE FUNCTION search_matches_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_matches;
  RETURN NULL;
END $$;

CREATE TRIGGER search_documents_matches_inserted AFTER INSERT ON search_documents
  REFERENCING NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_matches_inserted();
CREATE TRIGGER search_documents_matches_updated AFTER UPDATE ON search_documents
  REFERENCING OLD TABLE AS old_documents NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_matches_updated();
CREATE TRIGGER search_documents_matches_deleted AFTER DELETE ON search_documents
  REFERENCING OLD TABLE AS old_documents FOR EACH STATEMENT EXECUTE FUNCTION search_matches_deleted();
CREATE TRIGGER search_documents_matches_truncated AFTER TRUNCATE ON search_documents
  FOR EACH STATEMENT EXECUTE FUNCTION search_matches_truncated();

-- The documents indexed so far, a product's colourways side by side (they share most words, so a
-- word's matches fill fewer pages).
INSERT INTO search_matches (generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
                            stratification_code, sizes_match, sort_name, first_seen, search)
SELECT generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
       stratification_code, sizes_match, sort_name, first_seen, search
  FROM search_documents WHERE NOT blocked
 ORDER BY generation, product_no, id;
-- Built once the rows are in (a GIN index is built far faster than filled row by row).
CREATE INDEX search_matches_search ON search_matches USING gin (search);
