-- Up Migration
-- Suggest matches a query word of three or more characters anywhere in the suggest text, and a
-- shorter one at the start of a word there (src/modules/search/search.queries.ts). A trigram index
-- cannot serve an infix of one or two characters ('%ja%' holds no trigram: every document was read
-- and rechecked, ~50 ms over 23,000), but it serves the start of a word (' ja' is a trigram of
-- every word beginning "ja"). suggest_words is the suggest text as its words, letters and digits,
-- each after one space, so '% ja%' is exactly "a word starting ja" and the index finds it; query
-- words are letter and digit runs, so an infix of one matches here exactly where it matches the
-- suggest text. Its index replaces the one on suggest, which nothing reads any more.
ALTER TABLE search_documents
  ADD COLUMN suggest_words text GENERATED ALWAYS AS (' ' || regexp_replace(suggest, '[^[:alnum:]]+', ' ', 'g')) STORED;
CREATE INDEX search_documents_suggest_words ON search_documents USING gin (suggest_words gin_trgm_ops);
DROP INDEX search_documents_suggest;
