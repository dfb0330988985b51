-- Up Migration
-- Product deletions for the search indexer (src/modules/search/search.indexer.ts). A deleted row
-- leaves nothing to find by changed_xid, so a refresh used to look for indexed products whose row
-- is gone by comparing every product key with every product (~30 ms over 116,000 products), each
-- time lookup_state.deletions moved, which a delete of stock or of a brand moves too. Instead every
-- statement that removes products writes the SKUs it removed here, stamped with its transaction id,
-- and a refresh reads the rows stamped at or above its watermark, as it reads changed_xid: a
-- deleting transaction that commits after a refresh began is read by the next one. A refresh
-- deletes the rows below its new watermark once it has read them; a rebuild's switch still compares
-- every key (a refresh may have removed rows it needed meanwhile).
--
-- sku NULL: products was truncated, so any indexed product may be gone; the refresh then compares
-- every key. One such row is written here: deletions made before this migration and not yet
-- refreshed were told by lookup_state.deletions, which refreshes no longer read.
CREATE TABLE search_product_deletions (
  deleted_xid  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  sku          text NULL
);
CREATE INDEX search_product_deletions_deleted_xid ON search_product_deletions (deleted_xid);
INSERT INTO search_product_deletions (sku) VALUES (NULL);

CREATE FUNCTION search_log_product_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- `gone` is the DELETE trigger's transition table; TRUNCATE has none, and a statement naming it
  -- must not even be planned there.
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO search_product_deletions (sku) VALUES (NULL);
  ELSE
    INSERT INTO search_product_deletions (sku) SELECT sku FROM gone;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER products_search_deleted AFTER DELETE ON products
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION search_log_product_deletions();
CREATE TRIGGER products_search_truncated AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION search_log_product_deletions();

-- A SKU changed by hand removes the product of the old SKU as surely as a delete (the API never
-- changes a key). A row trigger with a column list and a WHEN clause: the batch upserts never set
-- sku, so it costs them nothing.
CREATE FUNCTION search_log_product_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_product_deletions (sku) VALUES (OLD.sku);
  RETURN NULL;
END $$;
CREATE TRIGGER products_search_renamed AFTER UPDATE OF sku ON products
  FOR EACH ROW WHEN (OLD.sku IS DISTINCT FROM NEW.sku) EXECUTE FUNCTION search_log_product_renamed();

-- search_state.deletions_seen is no longer read or written by refreshes. It stays, so that a
-- service of the previous version still running against this database (a rolling deploy) keeps
-- working: it compares every key whenever lookup_state.deletions moved, as it always did.
COMMENT ON COLUMN search_state.deletions_seen IS 'Unused since 1764000001800_search_product_deletions; kept for services of the previous version.';
