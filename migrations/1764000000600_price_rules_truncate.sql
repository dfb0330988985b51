-- Up Migration
-- price_rules_bump_version (migration 1764000000400) refused TRUNCATE: its IF named the transition
-- table `changed` in the same expression as the TRUNCATE test, and PostgreSQL plans the whole
-- expression, so a TRUNCATE (which has no transition table) failed with "relation "changed" does
-- not exist". The TRUNCATE case is now decided before any statement names `changed`.
CREATE OR REPLACE FUNCTION price_rules_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE price_rules_state SET version = version + 1;
  ELSIF EXISTS (SELECT 1 FROM changed) THEN
    UPDATE price_rules_state SET version = version + 1;
  END IF;
  RETURN NULL;
END $$;
