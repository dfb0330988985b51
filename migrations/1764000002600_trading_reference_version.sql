-- Up Migration
-- A version of the freight and tax reference data (postcode routing, freight rates, package types,
-- tax jurisdictions and their rates, tax areas and their links, the GST matrix), read with the
-- account on every quote, so that each service instance can keep what it loaded of them in memory
-- (src/modules/orders/reference-cache.ts) and know from that one value whether its copy is still
-- exact. Any statement that really changes one of these tables bumps it in the same transaction,
-- so the new version is visible exactly when the new rows are (as price_rules_state does for rules).
CREATE TABLE reference_data_state (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version    bigint NOT NULL
);
INSERT INTO reference_data_state (version) VALUES (1);

CREATE FUNCTION reference_data_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- `changed` is the transition table of the trigger that fired (TRUNCATE has none).
  IF TG_OP = 'TRUNCATE' OR EXISTS (SELECT 1 FROM changed) THEN
    UPDATE reference_data_state SET version = version + 1;
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['postcode_routes', 'freight_rates', 'package_types', 'tax_jurisdictions',
                           'tax_jurisdiction_rates', 'tax_areas', 'tax_area_jurisdictions', 'gst_posting_rates'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed
                    FOR EACH STATEMENT EXECUTE FUNCTION reference_data_bump_version()', t || '_inserted', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed
                    FOR EACH STATEMENT EXECUTE FUNCTION reference_data_bump_version()', t || '_updated', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed
                    FOR EACH STATEMENT EXECUTE FUNCTION reference_data_bump_version()', t || '_deleted', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION reference_data_bump_version()', t || '_truncated', t);
  END LOOP;
END $$;
