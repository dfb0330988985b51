-- Up Migration
-- Freight data: postcode routing, freight rate bands and package types (airbags).
CREATE TABLE postcode_routes (
  id                         varchar(50) PRIMARY KEY,
  country_region_code        varchar(10) NOT NULL,
  postcode                   varchar(20) NOT NULL,
  default_road_agent_code    varchar(20),
  default_road_service_code  varchar(20),
  default_air_agent_code     varchar(20),
  default_air_service_code   varchar(20),
  default_method             varchar(10) NOT NULL,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  changed_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX postcode_routes_lookup_idx ON postcode_routes (country_region_code, postcode);

CREATE TABLE freight_rates (
  id                           varchar(50) PRIMARY KEY,
  country_region_code          varchar(10) NOT NULL,
  shipping_agent_code          varchar(20) NOT NULL,
  shipping_agent_service_code  varchar(20) NOT NULL,
  min_weight                   numeric(19,4),
  max_weight                   numeric(19,4),
  min_invoice_value            numeric(19,4),
  max_invoice_value            numeric(19,4),
  price                        numeric(19,4),
  start_date                   timestamptz,
  end_date                     timestamptz,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  changed_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX freight_rates_service_idx ON freight_rates (country_region_code, shipping_agent_code, shipping_agent_service_code);

CREATE TABLE package_types (
  id                   varchar(50) PRIMARY KEY,
  country_region_code  varchar(10) NOT NULL,
  description          varchar(100),
  length               numeric(19,4),
  width                numeric(19,4),
  height               numeric(19,4),
  weight               numeric(19,4),
  freight_cost         numeric(19,4),
  created_at           timestamptz NOT NULL DEFAULT now(),
  changed_at           timestamptz NOT NULL DEFAULT now()
);
