-- Up Migration
-- The search index (decisions §5): tables in the same PostgreSQL, written only by the search
-- indexer (src/modules/search/search.indexer.ts) and read by the search endpoints. pg_trgm is a
-- trusted extension, so the database owner (not a superuser) may create it; the products migration
-- already does, this says that the index needs it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row per document per generation. A rebuild writes generation N+1 beside the active N while
-- searches keep reading N (`WHERE generation = active_generation`), then switches in one transaction
-- and deletes N. The 15 fields are columns (filters, facets) and `document` is the 15 fields exactly
-- as the API serves them. `search` uses the 'simple' configuration: product words (brand names,
-- colours, product numbers, fabric names) are not English prose, and stemming would merge or cut
-- them ("Chaz" → "chaz", but "Pants" → "pant", "Nylon" unchanged, "Organic" → "organ").
CREATE TABLE search_documents (
  generation           integer NOT NULL,
  id                   text NOT NULL,
  product_no           text NOT NULL,
  description          text,
  brand                text,
  brand_code           text,
  colour               text NOT NULL,
  gender               text,
  fabric_type          text,
  sleeve_length        text,
  style_description    text,
  fabric_composition   text,
  stratification_code  text,
  category             text[] NOT NULL,
  available_sizes      text[] NOT NULL,
  blocked              boolean NOT NULL,
  document             jsonb NOT NULL,
  search               tsvector NOT NULL,
  -- Lowercased Description, Brand, ProductNo and Colour joined by spaces: infix typeahead by trigram.
  suggest              text NOT NULL,
  PRIMARY KEY (generation, id)
);
CREATE INDEX search_documents_search ON search_documents USING gin (search);
CREATE INDEX search_documents_suggest ON search_documents USING gin (suggest gin_trgm_ops);
CREATE INDEX search_documents_brand_code ON search_documents (generation, brand_code);
CREATE INDEX search_documents_blocked ON search_documents (generation, blocked);
CREATE INDEX search_documents_category ON search_documents USING gin (category);

-- Which document each product (SKU) is part of, per generation: a product that moves to another
-- colourway, or loses its master product number or colour, leaves its old document, which the
-- indexer finds here (the product row itself only tells the new key).
CREATE TABLE search_product_keys (
  generation         integer NOT NULL,
  sku                text NOT NULL,
  doc_key            text NOT NULL,
  master_product_no  text NOT NULL,
  PRIMARY KEY (generation, sku)
);
CREATE INDEX search_product_keys_doc_key ON search_product_keys (generation, doc_key);

-- The distinct words (lexemes of `search`) of the active generation, for typo tolerance.
CREATE TABLE search_words (
  word text PRIMARY KEY
);
CREATE INDEX search_words_trgm ON search_words USING gin (word gin_trgm_ops);

-- The indexer's state. `watermark` is the snapshot xmin at the start of the last refresh: every row
-- written by a transaction that refresh could not see carries this changed_xid or a later one, so
-- the next refresh reads changed_xid >= watermark and never misses a late commit. The initial 0
-- makes the first refresh index everything. `deletions_seen` is lookup_state.deletions as the last
-- refresh saw it (a product deleted leaves no changed_xid to find); `reference_deletions_seen` is
-- search_reference_deletions.deletions likewise (a category or brand deleted).
CREATE TABLE search_state (
  singleton                 boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  active_generation         integer NOT NULL,
  watermark                 xid8 NOT NULL,
  deletions_seen            bigint NOT NULL,
  reference_deletions_seen  bigint NOT NULL,
  refreshed_at              timestamptz,
  rebuilt_at                timestamptz
);
INSERT INTO search_state (active_generation, watermark, deletions_seen, reference_deletions_seen)
  VALUES (1, '0'::xid8, 0, 0);

-- Categories and brands deleted (by hand: the API never deletes them): counted here, not in
-- lookup_state, so a category edit does not drop the lookup's cached products.
CREATE TABLE search_reference_deletions (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  deletions  bigint NOT NULL
);
INSERT INTO search_reference_deletions (deletions) VALUES (0);

CREATE FUNCTION search_count_reference_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_reference_deletions SET deletions = deletions + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER categories_search_deleted AFTER DELETE OR TRUNCATE ON categories
  FOR EACH STATEMENT EXECUTE FUNCTION search_count_reference_deletion();
CREATE TRIGGER brands_search_deleted AFTER DELETE OR TRUNCATE ON brands
  FOR EACH STATEMENT EXECUTE FUNCTION search_count_reference_deletion();

-- Every writer of what documents are made of (the API, the CLI, SQL by hand) wakes the indexer,
-- which LISTENs on search_changes; notifications are sent at commit, and repeated ones in one
-- transaction fold into one.
CREATE FUNCTION search_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('search_changes', '');
  RETURN NULL;
END $$;
CREATE TRIGGER products_search_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION search_notify_change();
CREATE TRIGGER categories_search_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON categories
  FOR EACH STATEMENT EXECUTE FUNCTION search_notify_change();
CREATE TRIGGER brands_search_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON brands
  FOR EACH STATEMENT EXECUTE FUNCTION search_notify_change();

-- A category edit re-indexes the documents of the products in that category or below it: found by
-- this index rather than by reading every product.
CREATE INDEX products_category_idx ON products (category);
