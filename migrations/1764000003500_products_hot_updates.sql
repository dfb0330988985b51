-- Up Migration
-- Updates of products as HOT updates (heap-only tuples). Under continuous ingest the products table
-- took 617,000 updates in 5 minutes and not one was HOT: PostgreSQL can only update a row in place
-- on its page, without a new entry in every index, when no indexed column changes, and every real
-- change moves two indexed columns: changed_at (set by the upsert) and changed_xid (set by the
-- trigger of 1764000000500). So every update wrote a new entry in all six of the table's indexes and
-- left as many dead ones for vacuum, while the buyers' lookups read the same table.
--
-- * products_changed_at_idx is read by nothing (the search lag reads changed_at of rows found by
--   their change id): dropped.
-- * The change id that lookups and the search indexer ask "what changed since X" with moves to a
--   narrow table of its own, product_changes (sku, changed_xid, ean), indexed there; the EAN rides
--   along because a lookup by EAN asks which changed products carry a code, and joining products
--   for it made the lookup's prepared (generic) plan scan every product. It is written by
--   statement triggers from the transition tables of every insert and update of products, whoever
--   writes (the API, the CLI, SQL by hand), in the writing transaction, with the same id the
--   products row carries: "changed_xid >= X" means exactly what it meant on products.
--   products.changed_xid stays, unindexed, as the version the lookup compares.
-- * fillfactor 50 leaves room on each page for the new version of every row on it. An ERP pushes the
--   catalogue in passes of SKU-sorted batches, so one transaction updates every row of a page, and
--   the old versions cannot be pruned before it commits. Measured over a 20,000-product catalogue
--   pushed three times in 500-product batches with new prices: at fillfactor 80, 40 % of the updates
--   were HOT and the table grew from 29 MB after the first pass to 45 MB after the third; at 50, all but 0.1 % were HOT and it stayed at
--   27 MB. It applies to pages written from now on: `VACUUM FULL products` once rewrites a table
--   loaded before this migration.
--
-- Deletes and truncates of products remove the rows' changes here too; a SKU renamed by hand leaves
-- its old SKU's row behind, which joins to no product and is harmless (readers join products).
DROP INDEX products_changed_at_idx;

CREATE TABLE product_changes (
  sku          varchar(20) PRIMARY KEY,
  changed_xid  xid8 NOT NULL,
  ean          varchar(20)
);
INSERT INTO product_changes (sku, changed_xid, ean) SELECT sku, changed_xid, ean FROM products;
CREATE INDEX product_changes_changed_xid ON product_changes (changed_xid);
DROP INDEX products_changed_xid;

CREATE FUNCTION product_changes_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- In SKU order, as the batch upserts write products, so concurrent writers lock alike.
  INSERT INTO product_changes (sku, changed_xid, ean)
  SELECT sku, pg_current_xact_id(), ean FROM written ORDER BY sku
  ON CONFLICT (sku) DO UPDATE SET changed_xid = excluded.changed_xid, ean = excluded.ean
    WHERE (product_changes.changed_xid, product_changes.ean) IS DISTINCT FROM (excluded.changed_xid, excluded.ean);
  RETURN NULL;
END $$;
CREATE TRIGGER products_changes_inserted AFTER INSERT ON products
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION product_changes_record();
CREATE TRIGGER products_changes_updated AFTER UPDATE ON products
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION product_changes_record();

CREATE FUNCTION product_changes_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- `gone` is the DELETE trigger's transition table; TRUNCATE has none.
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM product_changes;
  ELSE
    DELETE FROM product_changes c USING gone g WHERE c.sku = g.sku;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER products_changes_deleted AFTER DELETE ON products
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION product_changes_forget();
CREATE TRIGGER products_changes_truncated AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION product_changes_forget();

ALTER TABLE products SET (fillfactor = 50);
