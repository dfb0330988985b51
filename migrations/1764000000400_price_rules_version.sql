-- Up Migration
-- A version of the whole price_rules table, so a service instance can hold every rule in memory
-- (src/modules/pricing/rule-cache.ts) and know, from one value read with the account on every
-- lookup, whether its copy is still exact. Any statement that really changes price_rules (through
-- the API or by hand) bumps it in the same transaction, so the new version is visible exactly when
-- the new rules are. A re-send that changes nothing touches no row and bumps nothing.
CREATE TABLE price_rules_state (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version    bigint NOT NULL
);
INSERT INTO price_rules_state (version) VALUES (1);

CREATE FUNCTION price_rules_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- `changed` is the transition table of the trigger that fired (TRUNCATE has none).
  IF TG_OP = 'TRUNCATE' OR EXISTS (SELECT 1 FROM changed) THEN
    UPDATE price_rules_state SET version = version + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER price_rules_inserted AFTER INSERT ON price_rules
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_rules_bump_version();
CREATE TRIGGER price_rules_updated AFTER UPDATE ON price_rules
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_rules_bump_version();
CREATE TRIGGER price_rules_deleted AFTER DELETE ON price_rules
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION price_rules_bump_version();
CREATE TRIGGER price_rules_truncated AFTER TRUNCATE ON price_rules
  FOR EACH STATEMENT EXECUTE FUNCTION price_rules_bump_version();
