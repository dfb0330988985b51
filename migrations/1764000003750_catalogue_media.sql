-- Up Migration
-- Pictures of the catalogue (issue 26 item 2, docs/decisions.md "Pictures"): PUT
-- /api/integration/catalogue/media stores, per master product or per colourway, the list of its
-- images as sent (a snapshot: each item replaces the whole list; [] empties it, and the row stays
-- so that readers find the change by its changed_xid).
--
-- Rows are keyed as the search key rule keys documents: `{masterProductNo}` or
-- `{masterProductNo}_{color}`, lowercased, spaces and slashes replaced by underscores. The rule is
-- one SQL function, colourway_key(), which computes the stored key from what was sent and the key a
-- product reads its pictures under, so both sides always agree (its lower() is the database's,
-- which for ASCII is JavaScript's toLowerCase, the search key's).
CREATE FUNCTION colourway_key(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT translate(lower($1), ' /', '__') $$;

CREATE TABLE catalogue_media (
  media_key          text PRIMARY KEY,
  -- colourway_key(master_product_no): the products whose pictures this row may be.
  master_key         text NOT NULL,
  -- As last sent (the key folds case, spaces and slashes).
  master_product_no  varchar(20) NOT NULL,
  color              varchar(50),
  -- [{url, alt?}], at most 12, in the order sent.
  images             jsonb NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  changed_at         timestamptz NOT NULL DEFAULT now(),
  changed_xid        xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX catalogue_media_changed_xid ON catalogue_media (changed_xid);
CREATE INDEX catalogue_media_master_key ON catalogue_media (master_key);
CREATE TRIGGER catalogue_media_changed_xid BEFORE UPDATE ON catalogue_media
  FOR EACH ROW EXECUTE FUNCTION stamp_changed_xid();

-- The lookup and the search indexer find the products a changed row is the pictures of by this
-- index. master_product_no is indexed already, so updates stay HOT as before.
CREATE INDEX products_master_key_idx ON products (colourway_key(master_product_no));

-- A row deleted by hand (the API never deletes one) leaves no changed_xid to find: the lookup drops
-- what it holds, and the indexer re-evaluates every document, as for a brand deleted.
CREATE TRIGGER catalogue_media_deleted AFTER DELETE ON catalogue_media
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER catalogue_media_truncated AFTER TRUNCATE ON catalogue_media
  FOR EACH STATEMENT EXECUTE FUNCTION lookup_state_count_deletion();
CREATE TRIGGER catalogue_media_search_deleted AFTER DELETE OR TRUNCATE ON catalogue_media
  FOR EACH STATEMENT EXECUTE FUNCTION search_count_reference_deletion();
CREATE TRIGGER catalogue_media_search_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON catalogue_media
  FOR EACH STATEMENT EXECUTE FUNCTION search_notify_change();

-- Documents now carry `images`. No picture exists yet, so every stored document's list is empty:
-- set here, the index needs no rebuild, and a refresh finds these documents unchanged.
UPDATE search_documents SET document = document || '{"images": []}'::jsonb WHERE NOT document ? 'images';
