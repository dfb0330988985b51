-- Up Migration
-- Search that costs little per query (issue 28 item 3): the index's documents as bitmaps.
--
-- A search reads every document its words match to test entitlement, rank, filter, count the
-- facets and sort: thousands of rows for a common word, ~15 ms of PostgreSQL per search on the
-- bench's catalogue, however narrow the rows. Here each unblocked document of a generation has a
-- slot (its place in `id` order), and each set of documents a search combines is a bitmap over
-- the slots (`bit varying`, a bit per document: 2.4 kB for 20,000 documents): the documents of a
-- brand code (entitlement), of a facet's value, of a filter's value, and those holding a lexeme
-- (anywhere, and in the Description). A search ANDs and ORs a few bitmaps and counts bits, so its
-- cost no longer grows with the documents it matches.
--
-- The bitmaps are a snapshot of a generation at a content version (search_state.version), built
-- by the indexer once the documents stop changing (search.bitmaps.ts). A search uses them only
-- when they are of the active generation and version, read in its own snapshot; otherwise it reads
-- the rows as before. They are derived: dropping them loses nothing.

-- The snapshot built: of which generation, at which version, over how many documents (slots).
CREATE TABLE search_bitmaps (
  generation  integer PRIMARY KEY,
  version     bigint NOT NULL,
  documents   integer NOT NULL,
  -- The empty bitmap of that many bits, which every search starts from.
  zeros       bit varying NOT NULL,
  built_at    timestamptz NOT NULL DEFAULT now()
);

-- A document's slot, and its place in the sorts by name and by newest (search.queries.ts ORDER).
CREATE TABLE search_slots (
  generation  integer NOT NULL,
  slot        integer NOT NULL,
  id          text NOT NULL,
  name_pos    integer NOT NULL,
  newest_pos  integer NOT NULL,
  PRIMARY KEY (generation, slot)
);
CREATE INDEX search_slots_name_order ON search_slots (generation, name_pos) INCLUDE (slot);
CREATE INDEX search_slots_newest_order ON search_slots (generation, newest_pos) INCLUDE (slot);

-- A set of documents: `kind` says of what (search.bitmaps.ts KINDS), `key` the value, the lexeme
-- or the brand code ("C" collation: a prefix is a range of keys). `bits` has a bit per slot; a
-- lexeme held by fewer than 1 in 64 documents keeps its slots instead (`slots`, ascending), which
-- take less room than its bitmap and make one when a search needs it (search_slots_bits).
CREATE TABLE search_bits (
  generation  integer NOT NULL,
  kind        text NOT NULL,
  key         text COLLATE "C" NOT NULL,
  documents   integer NOT NULL,
  bits        bit varying,
  slots       integer[],
  PRIMARY KEY (generation, kind, key),
  CHECK ((bits IS NULL) <> (slots IS NULL))
);
-- Bitmaps are read whole by every search: kept uncompressed, so none is decompressed to be read,
-- and in the row while the row fits a page (up to ~64,000 documents), so none is fetched from the
-- TOAST table either (a search reads hundreds: a value per colour).
ALTER TABLE search_bits ALTER COLUMN bits SET STORAGE EXTERNAL;
ALTER TABLE search_bits SET (toast_tuple_target = 8160);

-- The bitmap of `n` bits with the bits of `slots` set (any order, repeats allowed). A few slots
-- (a rare lexeme, at search time) are set one by one in a copy of the empty bitmap; many (a
-- build) are written out as text once, gaps of zeros between them.
CREATE FUNCTION search_slots_bits(slots integer[], n integer) RETURNS bit varying
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  bits bit varying;
  s integer;
BEGIN
  IF coalesce(cardinality(slots), 0) * 64 < n THEN
    bits := repeat('0', n)::bit varying;
    FOREACH s IN ARRAY coalesce(slots, '{}') LOOP
      bits := set_bit(bits, s, 1);
    END LOOP;
    RETURN bits;
  END IF;
  RETURN (SELECT (string_agg(repeat('0', x.s - x.prev - 1) || '1', '' ORDER BY x.s) || repeat('0', n - 1 - max(x.s)))::bit varying
            FROM (SELECT d.s, lag(d.s, 1, -1) OVER (ORDER BY d.s) AS prev FROM (SELECT DISTINCT unnest(slots) AS s) d) x);
END $$;

-- The slots whose bits are set, ascending, from the `skip`+1-th to at most `take` of them: a
-- page's documents. Tests 64 bits at once, so a sparse bitmap's empty stretches cost little.
CREATE FUNCTION search_bit_positions(bits bit varying, skip integer, take integer) RETURNS SETOF integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 50 AS $$
DECLARE
  n integer := length(bits);
  start integer := 0;
  width integer;
  chunk bit varying;
  ones integer;
  skipped integer := 0;
  taken integer := 0;
BEGIN
  IF take <= 0 THEN RETURN; END IF;
  WHILE start < n LOOP
    width := least(64, n - start);
    chunk := substring(bits FROM start + 1 FOR width);
    ones := bit_count(chunk);
    IF ones > 0 THEN
      IF skipped + ones <= skip THEN
        skipped := skipped + ones;
      ELSE
        FOR i IN 0 .. width - 1 LOOP
          IF get_bit(chunk, i) = 1 THEN
            IF skipped < skip THEN
              skipped := skipped + 1;
            ELSE
              RETURN NEXT start + i;
              taken := taken + 1;
              IF taken >= take THEN RETURN; END IF;
            END IF;
          END IF;
        END LOOP;
      END IF;
    END IF;
    start := start + width;
  END LOOP;
END $$;
