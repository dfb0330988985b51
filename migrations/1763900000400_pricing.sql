-- Up Migration
-- Price rules (price list lines). Not a snapshot: a rule is only inserted or overwritten by rule_id.
CREATE TABLE price_rules (
  rule_id                 varchar(50) PRIMARY KEY,
  source_type             varchar(30) NOT NULL,
  source_code             varchar(20),
  master_product_no       varchar(20),
  sku                     varchar(20),
  item_discount_group     varchar(50),
  amount_type             varchar(10) NOT NULL,
  min_quantity            integer,
  unit_price              numeric(19,4),
  line_discount_percent   numeric(19,4),
  allow_line_discount     boolean,
  allow_invoice_discount  boolean,
  start_date              timestamptz,
  end_date                timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  changed_at              timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT price_rules_one_target CHECK (num_nonnulls(sku, master_product_no, item_discount_group) = 1)
);
CREATE INDEX price_rules_sku_idx ON price_rules (sku) WHERE sku IS NOT NULL;
CREATE INDEX price_rules_master_idx ON price_rules (master_product_no) WHERE master_product_no IS NOT NULL;
CREATE INDEX price_rules_group_idx ON price_rules (item_discount_group) WHERE item_discount_group IS NOT NULL;
