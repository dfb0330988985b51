-- Up Migration
-- A word's typos found by its edits, not by trigrams (issue 28 items 3 and 4).
--
-- A query word's typos are the indexed words (search_words) one edit away. They were found by
-- trigram similarity, then tested by levenshtein_less_equal: a product number's digit trigrams are
-- in thousands of other product numbers, so "mt11655" read 948 words from the trigram index
-- (8.4 ms at 1,000,000 products, 81,657 words) to keep 10.
--
-- One letter inserted, deleted or replaced leaves everything before it and everything after it
-- as typed, and one of the two is at least half the word: so the words one such edit away are in
-- the range of words starting with the query word's first half (this index, in byte order) or
-- ending with its last half (the second, over the words reversed), and levenshtein_less_equal
-- decides among them. Swapped neighbours are looked up as spelled (the primary key).
-- search.queries.ts, TEXT_CTE.
CREATE INDEX search_words_bytes ON search_words (word COLLATE "C");
CREATE INDEX search_words_reversed ON search_words (reverse(word) COLLATE "C");
