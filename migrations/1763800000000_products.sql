-- Up Migration
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- Product master: one row per buyable variant. Decimals are numeric(19,4): exact, 4 places.
-- created_at is when Portway first learned the SKU; changed_at moves only when a value changed.
CREATE TABLE products (
  sku                        varchar(20) PRIMARY KEY,
  master_product_no          varchar(20),
  name                       varchar(100),
  description                varchar(100),
  blocked                    boolean,
  unit_of_measure            varchar(10),
  unit_price                 numeric(19,4),
  weight                     numeric(19,4),
  length                     numeric(19,4),
  width                      numeric(19,4),
  height                     numeric(19,4),
  category                   varchar(20),
  size                       varchar(50),
  color                      varchar(50),
  stratification_code        varchar(10),
  is_default_color           boolean,
  sub_brand                  varchar(200),
  gender                     varchar(50),
  brand_code                 varchar(20),
  style_description          varchar(1000),
  fabric_composition         varchar(500),
  style_features             varchar(1000),
  compliance_icons           varchar(500),
  size_fit                   varchar(50),
  model_size                 varchar(10),
  model_height               varchar(50),
  care_instructions          varchar(500),
  ean                        varchar(20),
  sleeve_length              varchar(50),
  fabric_type                varchar(50),
  tax_group_code             varchar(50),
  gst_product_posting_group  varchar(50),
  item_discount_group        varchar(50),
  created_at                 timestamptz NOT NULL DEFAULT now(),
  changed_at                 timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX products_ean_idx ON products (ean) WHERE ean IS NOT NULL;
CREATE INDEX products_master_product_no_idx ON products (master_product_no);
CREATE INDEX products_changed_at_idx ON products (changed_at);
