-- Up Migration
-- Brands: service-owned reference data (decisions §4). A restricted brand is only visible to an
-- account that lists it in allowedBrands or indentBrands; a brand code with no row here counts as
-- not restricted.
CREATE TABLE brands (
  code        varchar(20) PRIMARY KEY,
  name        varchar(100) NOT NULL,
  restricted  boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  changed_at  timestamptz NOT NULL DEFAULT now()
);

