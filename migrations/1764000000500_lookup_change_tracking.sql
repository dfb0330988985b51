-- Up Migration
-- Change tracking for the lookup's product cache (src/modules/lookup/product-cache.ts). Every row a
-- lookup answer is made of (the product, its stock document, its brand) records the transaction
-- that last wrote it, and an index finds the rows written since a given transaction in one short
-- range scan. A service instance holding decoded products asks, with each lookup, which of them
-- changed since it last checked them, instead of reading all of them again.
--
-- changed_xid is the writing transaction's id (xid8: 64 bits, never wraps). An insert takes it
-- from the default and an update from the trigger, whoever writes (the API, the CLI or by hand);
-- the batch upserts skip rows that do not change, so an identical re-send changes nothing here.
-- Rows stored before this migration carry the migration's own transaction id.
ALTER TABLE products ADD COLUMN changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE inventory_items ADD COLUMN changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE brands ADD COLUMN changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX products_changed_xid ON products (changed_xid);
CREATE INDEX inventory_items_changed_xid ON inventory_items (changed_xid);
CREATE INDEX brands_changed_xid ON brands (changed_xid);

CREATE FUNCTION stamp_changed_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.changed_xid := pg_current_xact_id();
  RETURN NEW;
END $$;

CREATE TRIGGER products_changed_xid BEFORE UPDATE ON products
  FOR EACH ROW EXECUTE FUNCTION stamp_changed_xid();
CREATE TRIGGER inventory_items_changed_xid BEFORE UPDATE ON inventory_items
  FOR EACH ROW EXECUTE FUNCTION stamp_changed_xid();
CREATE TRIGGER brands_changed_xid BEFORE UPDATE ON brands
  FOR EACH ROW EXECUTE FUNCTION stamp_changed_xid();

-- A deleted row leaves nothing to find by changed_xid, so deletes (none of the API's writers delete
-- these rows; an operator may) and truncates bump a counter instead, read with every lookup: a
-- changed counter makes an instance drop every product it holds.
CREATE TABLE lookup_state (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  deletions  bigint NOT NULL
);
INSERT INTO lookup_state (deletions) VALUES (0);

CREATE FUNCTION lookup_state_count_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- `gone` is the transition table of the DELETE trigger; TRUNCATE has none, and a statement
  -- naming it must not even be planned there.
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE lookup_state SET deletions = deletions + 1;
  ELSIF EXISTS (SELECT 1 FROM gone) THEN
    UPDATE lookup_state SET deletions = deletions + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER products_deleted AFTER DELETE ON products
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER products_truncated AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER inventory_items_deleted AFTER DELETE ON inventory_items
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER inventory_items_truncated AFTER TRUNCATE ON inventory_items
  FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER brands_deleted AFTER DELETE ON brands
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER brands_truncated AFTER TRUNCATE ON brands
  FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();

