-- Up Migration
-- Tax: jurisdictions with dated rates per tax group, areas linking jurisdictions, and the GST
-- posting-group matrix. Percentages are stored as sent: 10.0 means 10 %.
CREATE TABLE tax_jurisdictions (
  code         varchar(20) PRIMARY KEY,
  description  varchar(100),
  created_at   timestamptz NOT NULL DEFAULT now(),
  changed_at   timestamptz NOT NULL DEFAULT now()
);

-- effective_date '-infinity' is a rate sent without a date: in effect since always.
CREATE TABLE tax_jurisdiction_rates (
  jurisdiction_code  varchar(20) NOT NULL REFERENCES tax_jurisdictions (code),
  tax_group_code     varchar(50) NOT NULL,
  effective_date     date NOT NULL,
  rate_percent       numeric(19,4) NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  changed_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (jurisdiction_code, tax_group_code, effective_date)
);

CREATE TABLE tax_areas (
  code         varchar(20) PRIMARY KEY,
  description  varchar(100),
  created_at   timestamptz NOT NULL DEFAULT now(),
  changed_at   timestamptz NOT NULL DEFAULT now()
);

-- No foreign key to tax_jurisdictions: an area may name a jurisdiction not pushed yet.
CREATE TABLE tax_area_jurisdictions (
  area_code          varchar(20) NOT NULL REFERENCES tax_areas (code),
  jurisdiction_code  varchar(20) NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  changed_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (area_code, jurisdiction_code)
);

CREATE TABLE gst_posting_rates (
  business_posting_group  varchar(50) NOT NULL,
  product_posting_group   varchar(50) NOT NULL,
  rate_percent            numeric(19,4) NOT NULL,
  created_at              timestamptz NOT NULL DEFAULT now(),
  changed_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_posting_group, product_posting_group)
);
