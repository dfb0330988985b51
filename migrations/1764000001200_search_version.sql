-- Up Migration
-- A version of what searches read, for the answers each process keeps (src/modules/search/search.cache.ts):
-- raised in the writing transaction by any statement that inserts, changes or deletes a document
-- of the active generation. A refresh that changes nothing, and a rebuild writing the next
-- generation, leave it alone; the switch to a new generation changes active_generation, which
-- keyed answers also hold.
ALTER TABLE search_state ADD COLUMN version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION search_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM changed_documents c WHERE c.generation = (SELECT active_generation FROM search_state)) THEN
    UPDATE search_state SET version = version + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_documents_inserted AFTER INSERT ON search_documents
  REFERENCING NEW TABLE AS changed_documents FOR EACH STATEMENT EXECUTE FUNCTION search_bump_version();
CREATE TRIGGER search_documents_updated AFTER UPDATE ON search_documents
  REFERENCING NEW TABLE AS changed_documents FOR EACH STATEMENT EXECUTE FUNCTION search_bump_version();
CREATE TRIGGER search_documents_deleted AFTER DELETE ON search_documents
  REFERENCING OLD TABLE AS changed_documents FOR EACH STATEMENT EXECUTE FUNCTION search_bump_version();
