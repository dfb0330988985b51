-- Up Migration
-- Categories: service-owned reference data (decisions §5), kept through PUT /api/admin/categories.
-- A category names its parent by code; a parent not stored (yet) is allowed, since ERPs send
-- reference data in any order, so there is no foreign key. The writer refuses parent cycles under
-- a table lock (src/modules/catalogue/categories.repository.ts).
--
-- changed_xid records the transaction that last wrote the row, as for brands
-- (1764000000500_lookup_change_tracking.sql): the search indexer uses it as its watermark. An
-- insert takes it from the default and an update from the trigger; the batch upsert skips rows
-- that do not change, so an identical re-send changes nothing here.
CREATE TABLE categories (
  code         varchar(20) PRIMARY KEY,
  name         varchar(100) NOT NULL,
  parent_code  varchar(20) NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  changed_at   timestamptz NOT NULL DEFAULT now(),
  changed_xid  xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX categories_changed_xid ON categories (changed_xid);

CREATE TRIGGER categories_changed_xid BEFORE UPDATE ON categories
  FOR EACH ROW EXECUTE FUNCTION stamp_changed_xid();
