-- Up Migration
-- Search that costs little per query (issue 28 item 3).
--
-- 1. The tsvector stays in the row. A document row is ~2.8 kB with its `document`, so the toaster
--    moved the largest values out of line, `search` among them: every document a word matched was
--    read back from the TOAST table to test and rank it (~3 buffer reads each; 44 ms of CPU to
--    count the 7,500 documents holding "moisture"). STORAGE MAIN makes the toaster move the other
--    values out first (`document`, read only for the 20 of a page): the row keeps its tsvector.
--    It applies to rows written from now on; `portway index rebuild` rewrites them all.
ALTER TABLE search_documents ALTER COLUMN search SET STORAGE MAIN;

-- 2. What searches without words count, kept counted. An empty query or one with filters only
--    counted the facets over every document the account may see (~20,000: 35–45 ms of CPU). The
--    facets, the filters and the entitlement read only these columns of a document, and documents
--    share them in a few thousand combinations: one row per combination of the generation's
--    unblocked documents (blocked ones are never found), with how many documents have it. Searches
--    without words count over these rows, weighing each by `documents`, so the counts are those of
--    the documents; entitlement and filters test each row exactly as they test a document.
--    Statement triggers keep the rows in the transaction that writes the documents, so a search
--    never sees counts that disagree with the documents it pages through.
CREATE TABLE search_facet_groups (
  generation           integer NOT NULL,
  brand_code           text,
  brand_key            text NOT NULL,
  brand                text,
  colour               text NOT NULL,
  gender               text,
  category             text[] NOT NULL,
  category_match       text[] NOT NULL,
  stratification_code  text,
  sizes_match          text[] NOT NULL,
  documents            integer NOT NULL
);
-- brand_key and category_match follow from brand_code and category (generated columns of search_documents).
CREATE UNIQUE INDEX search_facet_groups_key ON search_facet_groups
  (generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match) NULLS NOT DISTINCT;
CREATE INDEX search_facet_groups_emptied ON search_facet_groups (generation) WHERE documents = 0;

-- A search with no filter at all (the empty query, a storefront's first page) needs each facet's
-- counts alone, and a search filtered by one facet needs that facet's counts without it: per brand
-- (what entitlement reads) and facet, each value and how many unblocked documents have it, a
-- document counted once under each name of its Category. A few hundred rows, where the
-- combinations above are thousands.
CREATE TABLE search_facet_values (
  generation  integer NOT NULL,
  brand_code  text,
  brand_key   text NOT NULL,
  facet       text NOT NULL CHECK (facet IN ('Brand', 'Category', 'Colour', 'Gender')),
  value       text,
  documents   integer NOT NULL
);
CREATE UNIQUE INDEX search_facet_values_key ON search_facet_values (generation, facet, brand_code, value) NULLS NOT DISTINCT;
CREATE INDEX search_facet_values_emptied ON search_facet_values (generation) WHERE documents = 0;

CREATE FUNCTION search_facet_groups_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_facet_groups AS g (generation, brand_code, brand_key, brand, colour, gender, category, category_match,
                                        stratification_code, sizes_match, documents)
  SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, count(*)
    FROM new_documents WHERE NOT blocked
   GROUP BY generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match
   ORDER BY generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match
  ON CONFLICT (generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match)
  DO UPDATE SET documents = g.documents + excluded.documents;
  INSERT INTO search_facet_values AS v (generation, brand_code, brand_key, facet, value, documents)
  SELECT d.generation, d.brand_code, d.brand_key, f.facet, f.value, count(*)
    FROM new_documents d CROSS JOIN LATERAL (
           VALUES ('Brand', d.brand), ('Colour', d.colour), ('Gender', d.gender)
           UNION ALL SELECT 'Category', c FROM unnest(d.category) c) f(facet, value)
   WHERE NOT d.blocked
   GROUP BY d.generation, d.brand_code, d.brand_key, f.facet, f.value
   ORDER BY d.generation, f.facet, d.brand_code, f.value
  ON CONFLICT (generation, facet, brand_code, value) DO UPDATE SET documents = v.documents + excluded.documents;
  RETURN NULL;
END $$;

-- A removal adds minus the documents removed, through the unique index as an insert does (a join on
-- the nullable key columns could not be hashed: a rebuild's switch removing 20,000 documents would
-- compare every pair of combinations).
CREATE FUNCTION search_facet_groups_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_facet_groups AS g (generation, brand_code, brand_key, brand, colour, gender, category, category_match,
                                        stratification_code, sizes_match, documents)
  SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, -count(*)
    FROM old_documents WHERE NOT blocked
   GROUP BY generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match
   ORDER BY generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match
  ON CONFLICT (generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match)
  DO UPDATE SET documents = g.documents + excluded.documents;
  INSERT INTO search_facet_values AS v (generation, brand_code, brand_key, facet, value, documents)
  SELECT d.generation, d.brand_code, d.brand_key, f.facet, f.value, -count(*)
    FROM old_documents d CROSS JOIN LATERAL (
           VALUES ('Brand', d.brand), ('Colour', d.colour), ('Gender', d.gender)
           UNION ALL SELECT 'Category', c FROM unnest(d.category) c) f(facet, value)
   WHERE NOT d.blocked
   GROUP BY d.generation, d.brand_code, d.brand_key, f.facet, f.value
   ORDER BY d.generation, f.facet, d.brand_code, f.value
  ON CONFLICT (generation, facet, brand_code, value) DO UPDATE SET documents = v.documents + excluded.documents;
  DELETE FROM search_facet_groups WHERE documents = 0;
  DELETE FROM search_facet_values WHERE documents = 0;
  RETURN NULL;
END $$;

-- An update is its old rows removed and its new rows inserted; a document whose counted columns did
-- not change nets to nothing and writes no row.
CREATE FUNCTION search_facet_groups_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changes AS (
    SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, 1 AS delta
      FROM new_documents WHERE NOT blocked
    UNION ALL
    SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, -1
      FROM old_documents WHERE NOT blocked
  )
  INSERT INTO search_facet_groups AS g (generation, brand_code, brand_key, brand, colour, gender, category, category_match,
                                        stratification_code, sizes_match, documents)
  SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, sum(delta)
    FROM changes
   GROUP BY generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match
  HAVING sum(delta) <> 0
   ORDER BY generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match
  ON CONFLICT (generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match)
  DO UPDATE SET documents = g.documents + excluded.documents;
  WITH changes AS (
    SELECT generation, brand_code, brand_key, brand, colour, gender, category, 1 AS delta FROM new_documents WHERE NOT blocked
    UNION ALL
    SELECT generation, brand_code, brand_key, brand, colour, gender, category, -1 FROM old_documents WHERE NOT blocked
  )
  INSERT INTO search_facet_values AS v (generation, brand_code, brand_key, facet, value, documents)
  SELECT d.generation, d.brand_code, d.brand_key, f.facet, f.value, sum(d.delta)
    FROM changes d CROSS JOIN LATERAL (
           VALUES ('Brand', d.brand), ('Colour', d.colour), ('Gender', d.gender)
           UNION ALL SELECT 'Category', c FROM unnest(d.category) c) f(facet, value)
   GROUP BY d.generation, d.brand_code, d.brand_key, f.facet, f.value
  HAVING sum(d.delta) <> 0
   ORDER BY d.generation, f.facet, d.brand_code, f.value
  ON CONFLICT (generation, facet, brand_code, value) DO UPDATE SET documents = v.documents + excluded.documents;
  DELETE FROM search_facet_groups WHERE documents = 0;
  DELETE FROM search_facet_values WHERE documents = 0;
  RETURN NULL;
END $$;

CREATE TRIGGER search_documents_facets_inserted AFTER INSERT ON search_documents
  REFERENCING NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_facet_groups_inserted();
CREATE TRIGGER search_documents_facets_updated AFTER UPDATE ON search_documents
  REFERENCING OLD TABLE AS old_documents NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_facet_groups_updated();
CREATE TRIGGER search_documents_facets_deleted AFTER DELETE ON search_documents
  REFERENCING OLD TABLE AS old_documents FOR EACH STATEMENT EXECUTE FUNCTION search_facet_groups_deleted();
-- TRUNCATE has no transition table: it empties the counts with the documents.
CREATE FUNCTION search_facet_groups_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE search_facet_groups, search_facet_values;
  RETURN NULL;
END $$;
CREATE TRIGGER search_documents_facets_truncated AFTER TRUNCATE ON search_documents
  FOR EACH STATEMENT EXECUTE FUNCTION search_facet_groups_truncated();

-- The documents indexed so far, counted.
INSERT INTO search_facet_groups (generation, brand_code, brand_key, brand, colour, gender, category, category_match,
                                 stratification_code, sizes_match, documents)
SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, count(*)
  FROM search_documents WHERE NOT blocked
 GROUP BY generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match;
INSERT INTO search_facet_values (generation, brand_code, brand_key, facet, value, documents)
SELECT d.generation, d.brand_code, d.brand_key, f.facet, f.value, count(*)
  FROM search_documents d CROSS JOIN LATERAL (
         VALUES ('Brand', d.brand), ('Colour', d.colour), ('Gender', d.gender)
         UNION ALL SELECT 'Category', c FROM unnest(d.category) c) f(facet, value)
 WHERE NOT d.blocked
 GROUP BY d.generation, d.brand_code, d.brand_key, f.facet, f.value;

-- 3. A search without words pages through the documents the account may see in `id` order (byte
--    order, as search.queries.ts sorts): this index walks them in that order, so a page reads its
--    20 documents (and those the entitlement or the filters leave out), not all 20,000 to sort them.
CREATE INDEX search_documents_id_order ON search_documents (generation, id COLLATE "C") WHERE NOT blocked;

-- 4. A search without words that finds few documents (filters that narrow: a brand and a colour,
--    a size) reads them through the combinations that pass its filters rather than walk every
--    document the account may see: each document is indexed by a hash of its combination's
--    columns, and the page's statement looks up the hashes of the combinations found (a collision
--    only brings a document the filters then leave out). array_to_string is stable only because it
--    could print any element type; of text it is immutable, as this function is declared.
CREATE FUNCTION search_facet_key(brand_code text, brand text, colour text, gender text, category text[],
                                 stratification_code text, sizes_match text[]) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended(concat(brand_code, E'\x1f', brand, E'\x1f', colour, E'\x1f', gender, E'\x1f',
                                 array_to_string(category, E'\x1e'), E'\x1f', stratification_code, E'\x1f',
                                 array_to_string(sizes_match, E'\x1e')), 0)
$$;
CREATE INDEX search_documents_facet_key ON search_documents
  (generation, search_facet_key(brand_code, brand, colour, gender, category, stratification_code, sizes_match)) WHERE NOT blocked;
