-- Up Migration
-- Suggest that costs little per query (issue 28 item 3): a narrow table to match in, as
-- search_matches (migration 1764000003960) is for search.
--
-- A suggest reads every document its words match (thousands for a common word or a colour) to test
-- entitlement, keep one colourway per product and rank them. It read them from search_documents,
-- whose rows carry the whole document (~2.8 kB, about four to a page): each match a page visited
-- and a wide row walked for the few columns suggest needs, and each Description lowercased once
-- per match to rank it. search_suggest_matches holds one row per unblocked document (blocked ones
-- are never suggested) with only what matching, entitlement and ranking read, the Description
-- already lowercased; the wide row is read for the few suggestions answered alone.
CREATE TABLE search_suggest_matches (
  generation         integer NOT NULL,
  id                 text NOT NULL,
  product_no         text NOT NULL,
  brand_code         text,
  brand_key          text NOT NULL,
  -- lower(coalesce(Description, '')): what the ranking tests the query's words against.
  lowered            text NOT NULL,
  -- length(coalesce(Description, '')): the ranking's shorter-first, of the Description as sent.
  description_length integer NOT NULL,
  suggest_words      text NOT NULL,
  PRIMARY KEY (generation, id)
);

-- Statement triggers keep the rows with the documents, in the transaction that writes them (as
-- search_matches' do). An update removes a document's row and writes it again (it may have been
-- blocked or unblocked). Creating them locks search_documents against writes until this migration
-- commits, so the copy below, made after them, misses no document an older process writes meanwhile.
CREATE FUNCTION search_suggest_matches_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_suggest_matches (generation, id, product_no, brand_code, brand_key, lowered, description_length, suggest_words)
  SELECT generation, id, product_no, brand_code, brand_key, lower(coalesce(description, '')), length(coalesce(description, '')), suggest_words
    FROM new_documents WHERE NOT blocked;
  RETURN NULL;
END $$;

CREATE FUNCTION search_suggest_matches_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_suggest_matches m USING old_documents o WHERE m.generation = o.generation AND m.id = o.id;
  RETURN NULL;
END $$;

CREATE FUNCTION search_suggest_matches_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_suggest_matches m USING old_documents o WHERE m.generation = o.generation AND m.id = o.id;
  INSERT INTO search_suggest_matches (generation, id, product_no, brand_code, brand_key, lowered, description_length, suggest_words)
  SELECT generation, id, product_no, brand_code, brand_key, lower(coalesce(description, '')), length(coalesce(description, '')), suggest_words
    FROM new_documents WHERE NOT blocked;
  RETURN NULL;
END $$;

CREATE FUNCTION search_suggest_matches_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_suggest_matches;
  RETURN NULL;
END $$;

CREATE TRIGGER search_documents_suggest_matches_inserted AFTER INSERT ON search_documents
  REFERENCING NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_suggest_matches_inserted();
CREATE TRIGGER search_documents_suggest_matches_updated AFTER UPDATE ON search_documents
  REFERENCING OLD TABLE AS old_documents NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_suggest_matches_updated();
CREATE TRIGGER search_documents_suggest_matches_deleted AFTER DELETE ON search_documents
  REFERENCING OLD TABLE AS old_documents FOR EACH STATEMENT EXECUTE FUNCTION search_suggest_matches_deleted();
CREATE TRIGGER search_documents_suggest_matches_truncated AFTER TRUNCATE ON search_documents
  FOR EACH STATEMENT EXECUTE FUNCTION search_suggest_matches_truncated();

-- The documents indexed so far, a product's colourways side by side (they share most words, so a
-- word's matches fill fewer pages).
INSERT INTO search_suggest_matches (generation, id, product_no, brand_code, brand_key, lowered, description_length, suggest_words)
SELECT generation, id, product_no, brand_code, brand_key, lower(coalesce(description, '')), length(coalesce(description, '')), suggest_words
  FROM search_documents WHERE NOT blocked
 ORDER BY generation, product_no, id;
-- Built once the rows are in (a GIN index is built far faster than filled row by row). It takes
-- over from search_documents_suggest_words, which this release no longer reads but the one before
-- it does while a rollout runs (without it their suggests would scan every document): a later
-- release drops that one, with a `-- Contract:` line (docs/operations.md, "Migrations in a rollout").
CREATE INDEX search_suggest_matches_words ON search_suggest_matches USING gin (suggest_words gin_trgm_ops);
