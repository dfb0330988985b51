-- Up Migration
-- Search without words, with filters: the page walks the documents in its order through a narrow
-- index, keeping those whose combination passed (issue 28 item 3).
--
-- A filtered search without words counts from search_facet_groups (a row per combination of the
-- facets' and filters' columns) and then reads its page. It read the page from search_documents in
-- the sort's order, testing the entitlement and every filter on each wide row (~2.8 kB), until the
-- page was full: a filter whose documents come late in `id` order ("gender=Women" on the bench's
-- catalogue, whose men's products come first) read ~9,500 rows for a page of 24, ~20 ms of the
-- search's ~24 ms.
--
-- Now each combination has an id, `facet_id`, the MD5 of its columns (search_facet_id), kept in
-- search_facet_groups and beside every unblocked document in search_matches. The combinations that
-- pass the entitlement and the filters are already known from the counting; the page keeps the
-- documents whose facet_id is one of them, walking an index that holds (generation, the sort's
-- columns, id) and facet_id, so no table row is read. 128 bits of MD5 make two combinations with
-- one id a chance of about 1 in 10^30 for a million of them; the filters are not tested again.
CREATE FUNCTION search_facet_id(brand_code text, brand text, colour text, gender text, category text[],
                                stratification_code text, sizes_match text[]) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT md5(concat_ws(E'\x1f', coalesce(brand_code, E'\x1d'), coalesce(brand, E'\x1d'), colour, coalesce(gender, E'\x1d'),
                       array_to_string(category, E'\x1e'), coalesce(stratification_code, E'\x1d'),
                       array_to_string(sizes_match, E'\x1e')))::uuid
$$;

-- search_facet_groups is small (a row per combination) and rewritten in a moment.
ALTER TABLE search_facet_groups ADD COLUMN facet_id uuid
  GENERATED ALWAYS AS (search_facet_id(brand_code, brand, colour, gender, category, stratification_code, sizes_match)) STORED;

-- search_matches holds a row per document: filled by its triggers from now on and once here, by an
-- UPDATE rather than a generated column, whose table rewrite would lock searches out meanwhile.
ALTER TABLE search_matches ADD COLUMN facet_id uuid;

CREATE OR REPLACE FUNCTION search_matches_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_matches (generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
                              stratification_code, sizes_match, sort_name, first_seen, search, facet_id)
  SELECT generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
         stratification_code, sizes_match, sort_name, first_seen, search,
         search_facet_id(brand_code, brand, colour, gender, category, stratification_code, sizes_match)
    FROM new_documents WHERE NOT blocked;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION search_matches_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_matches m USING old_documents o WHERE m.generation = o.generation AND m.id = o.id;
  INSERT INTO search_matches (generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
                              stratification_code, sizes_match, sort_name, first_seen, search, facet_id)
  SELECT generation, id, brand_code, brand_key, brand, colour, gender, category, category_match,
         stratification_code, sizes_match, sort_name, first_seen, search,
         search_facet_id(brand_code, brand, colour, gender, category, stratification_code, sizes_match)
    FROM new_documents WHERE NOT blocked;
  RETURN NULL;
END $$;

UPDATE search_matches SET facet_id = search_facet_id(brand_code, brand, colour, gender, category, stratification_code, sizes_match);

-- The page's walks, one per sort (search.queries.ts ORDER and WORDLESS_ORDER), and the lookup of a
-- few combinations' documents when the filters leave few.
CREATE INDEX search_matches_id_order ON search_matches (generation, id COLLATE "C") INCLUDE (facet_id);
CREATE INDEX search_matches_name_order ON search_matches (generation, sort_name COLLATE "C", id COLLATE "C") INCLUDE (facet_id);
CREATE INDEX search_matches_newest_order ON search_matches (generation, first_seen DESC NULLS LAST, id COLLATE "C") INCLUDE (facet_id);
CREATE INDEX search_matches_facet_id ON search_matches (generation, facet_id);
