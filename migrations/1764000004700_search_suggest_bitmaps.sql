-- Up Migration
-- Suggest over bitmaps (issue 28 item 3), beside the search's (migration 1764000004400).
--
-- A suggest read every document its words match (a quarter of the catalogue for two letters) to
-- test entitlement, keep one colourway per product and rank them: ~5 ms of PostgreSQL per suggest
-- on the bench catalogue, 37 ms at 1,000,000 products. The bitmaps' build now also gives each
-- unblocked document a second slot, its place in the order suggest ranks by within a class
-- (the Description's length, then product number and id), and keeps over those slots the documents
-- of each brand code, of each three-character piece of the suggest words and of the Description
-- (a piece no query word can hold, one with a space after its first character, is left out), and
-- of the Description's first two and first three characters. A query word's pieces ANDed are a
-- superset of the documents holding it (exact for a word of three characters or a word start of
-- two, ' ja'); suggest walks the four classes of its ranking in slot order, tests each document
-- found on its row (search_suggest_slots) and stops at `top` products (search.bitmaps.ts).

-- Suggest's part of a snapshot, built in a transaction after searches' part (it takes longer):
-- the version it was built at, how many documents, and the empty bitmap over them. NULL until it is
-- built (and in a build of a release before this one): suggests read the rows meanwhile.
ALTER TABLE search_bitmaps ADD COLUMN suggest_version bigint, ADD COLUMN suggest_documents integer, ADD COLUMN suggest_zeros bit varying;

-- A document's suggest slot and what testing it reads: the suggest words, the Description lowercased.
CREATE TABLE search_suggest_slots (
  generation     integer NOT NULL,
  slot           integer NOT NULL,
  id             text NOT NULL,
  product_no     text NOT NULL,
  brand_code     text,
  lowered        text NOT NULL,
  suggest_words  text NOT NULL,
  PRIMARY KEY (generation, slot)
);

-- The ids of at most `top` documents, one per product, in the order of the suggest ranking: the
-- classes (`classes`, candidates of each: starts and in the Description, starts only, in the
-- Description only, neither) in turn, each in slot order. A candidate is tested on its row (every
-- pattern in the suggest words; the Description starting with `first_pattern`; every pattern in
-- the Description after a space) and taken in the class it truly is in, unless its product was
-- taken already: a product's first document in this order is its best-ranked.
CREATE FUNCTION search_suggest_walk(g integer, classes bit varying[], patterns text[], first_pattern text, top integer) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  chunk integer;
  chosen text[] := '{}';
  products text[] := '{}';
  skip integer;
  got integer;
  r record;
BEGIN
  IF top <= 0 THEN RETURN chosen; END IF;
  FOR k IN 1 .. 4 LOOP
    CONTINUE WHEN bit_count(classes[k]) = 0;
    skip := 0;
    -- A product's colourways are neighbours: twice `top` candidates, and twice as many each turn after.
    chunk := 2 * top + 8;
    LOOP
      got := 0;
      FOR r IN SELECT s.id, s.product_no, s.suggest_words LIKE ALL (patterns) AS hit, s.lowered LIKE first_pattern AS starts,
                      (' ' || s.lowered) LIKE ALL (patterns) AS described
                 FROM search_bit_positions(classes[k], skip, chunk) p(slot)
                 JOIN search_suggest_slots s ON s.generation = g AND s.slot = p.slot
                ORDER BY p.slot
      LOOP
        got := got + 1;
        CONTINUE WHEN NOT r.hit OR r.starts <> (k <= 2) OR r.described <> (k IN (1, 3)) OR r.product_no = ANY (products);
        products := products || r.product_no;
        chosen := chosen || r.id;
        IF cardinality(chosen) >= top THEN RETURN chosen; END IF;
      END LOOP;
      EXIT WHEN got < chunk;
      skip := skip + chunk;
      chunk := least(2 * chunk, 4096);
    END LOOP;
  END LOOP;
  RETURN chosen;
END $$;
