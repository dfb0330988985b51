-- Up Migration
-- Inventory per SKU and location. inventory_items is the snapshot parent: one row per SKU ever
-- sent (the SKU need not be a known product yet); its row lock serialises concurrent snapshots.
CREATE TABLE inventory_items (
  sku         varchar(20) PRIMARY KEY,
  created_at  timestamptz NOT NULL DEFAULT now(),
  changed_at  timestamptz NOT NULL DEFAULT now()
);

-- `incoming` is the location's list of expected receipts [{quantity, expectedDate}], replaced as a
-- whole on every push.
CREATE TABLE inventory_locations (
  sku            varchar(20) NOT NULL REFERENCES inventory_items (sku),
  location_code  varchar(20) NOT NULL,
  on_hand        integer NOT NULL CHECK (on_hand >= 0),
  reserved       integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  incoming       jsonb NOT NULL DEFAULT '[]',
  created_at     timestamptz NOT NULL DEFAULT now(),
  changed_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sku, location_code)
);
