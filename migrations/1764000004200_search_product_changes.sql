-- Up Migration
-- The search index follows only the product writes that change what a document is made of. An
-- ERP pushes prices and weights far more often than names or sizes; until now every written product
-- moved product_changes.changed_xid, which the indexer reads, so each batch of new prices woke the
-- indexer to read the products' variants again, build their documents, find them unchanged and
-- write nothing: in the load trial (200 lookups/s beside continuous ingest) that work came right
-- after every batch's commit, blocked the service's event loop 30-60 ms at a time and took the
-- lookups' slowest 1 %.
--
-- search_product_changes holds, per SKU, a digest of the columns the documents are built from
-- (search.repository.ts SEARCHED_PRODUCT_COLUMNS, the columns of the variants the indexer reads;
-- test/modules/search/search.changes.test.ts changes each in turn and checks that it moves the
-- digest, and that the other columns do not) and the transaction that last changed that digest.
-- It is written by statement triggers from every insert and update of products, whoever writes, in
-- the writing transaction: a row changes only when its digest does, and the indexer is woken only
-- then (deletes and truncates still wake it through products_search_changes). The indexer reads
-- "search_xid >= watermark" here as it read changed_xid in product_changes, which the lookup keeps
-- reading; product_changes is left as it is, so an indexer of the previous release still finds every
-- change during a rollout (it is woken less often, and its interval refresh finds the rest).

CREATE FUNCTION search_product_digest(
  master_product_no text, name text, description text, blocked boolean, category text, size text, color text,
  stratification_code text, gender text, brand_code text, style_description text, fabric_composition text,
  created_at timestamptz
) RETURNS uuid LANGUAGE sql STABLE PARALLEL SAFE AS $$
  -- created_at as epoch seconds: its text would follow the session's TimeZone and DateStyle.
  SELECT md5(ROW(master_product_no, name, description, blocked, category, size, color, stratification_code, gender,
                 brand_code, style_description, fabric_composition, extract(epoch FROM created_at))::text)::uuid
$$;

CREATE TABLE search_product_changes (
  sku         varchar(20) PRIMARY KEY,
  search_xid  xid8 NOT NULL,
  changed_at  timestamptz NOT NULL,
  digest      uuid NOT NULL
);
INSERT INTO search_product_changes (sku, search_xid, changed_at, digest)
SELECT p.sku, coalesce(c.changed_xid, pg_current_xact_id()), p.changed_at,
       search_product_digest(p.master_product_no, p.name, p.description, p.blocked, p.category, p.size, p.color,
                             p.stratification_code, p.gender, p.brand_code, p.style_description, p.fabric_composition, p.created_at)
  FROM products p LEFT JOIN product_changes c ON c.sku = p.sku;
CREATE INDEX search_product_changes_search_xid ON search_product_changes (search_xid);

CREATE FUNCTION search_product_changes_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint;
BEGIN
  -- In SKU order, as the batch upserts write products, so concurrent writers lock alike.
  INSERT INTO search_product_changes AS s (sku, search_xid, changed_at, digest)
  SELECT sku, pg_current_xact_id(), now(),
         search_product_digest(master_product_no, name, description, blocked, category, size, color,
                               stratification_code, gender, brand_code, style_description, fabric_composition, created_at)
    FROM written ORDER BY sku
  ON CONFLICT (sku) DO UPDATE SET search_xid = excluded.search_xid, changed_at = excluded.changed_at, digest = excluded.digest
    WHERE s.digest IS DISTINCT FROM excluded.digest;
  GET DIAGNOSTICS changed = ROW_COUNT;
  IF changed > 0 THEN
    PERFORM pg_notify('search_changes', '');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER products_search_inserted AFTER INSERT ON products
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION search_product_changes_record();
CREATE TRIGGER products_search_updated AFTER UPDATE ON products
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION search_product_changes_record();

CREATE FUNCTION search_product_changes_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM search_product_changes;
  ELSE
    DELETE FROM search_product_changes c USING gone g WHERE c.sku = g.sku;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER products_search_deleted_changes AFTER DELETE ON products
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION search_product_changes_forget();
CREATE TRIGGER products_search_truncated_changes AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION search_product_changes_forget();

-- Inserts and updates wake the indexer from search_product_changes_record, when a digest moved;
-- deletes and truncates as before. (An indexer of the previous release is not woken by a write that
-- changes no document's columns, which it would have found changed nothing; its interval refresh
-- still reads product_changes.)
CREATE OR REPLACE TRIGGER products_search_changes AFTER DELETE OR TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION search_notify_change();
