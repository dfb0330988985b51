-- Up Migration
-- Typo tolerance for search (issue 12): a query word that matches no indexed word, not even as a
-- prefix, also matches the indexed words (search_words) one typo away from it. fuzzystrmatch is a
-- trusted extension (the database owner may create it) that ships with PostgreSQL's contrib.
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

-- Whether `a` is one typo away from `b`: one letter inserted, deleted or replaced (Levenshtein
-- distance 1), or two neighbouring letters swapped ("hoodei"), which Levenshtein counts as two.
CREATE FUNCTION search_one_typo(a text, b text) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT a <> b AND (
    levenshtein_less_equal(a, b, 1) <= 1
    OR (length(a) = length(b) AND EXISTS (
      SELECT 1 FROM generate_series(1, length(a) - 1) i
       WHERE left(a, i - 1) = left(b, i - 1)
         AND substr(a, i, 1) = substr(b, i + 1, 1) AND substr(a, i + 1, 1) = substr(b, i, 1)
         AND substr(a, i + 2) = substr(b, i + 2))))
$$;
