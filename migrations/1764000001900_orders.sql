-- Up Migration
-- Orders placed through the public API, their lines, the Idempotency-Key answers and the ERP
-- hand-off state. Status is never stored: it is derived from the quantities on every read
-- (src/modules/orders/orders.engine.ts).

-- Order numbers: PW followed by at least 8 digits (orders.service.ts formats them).
CREATE SEQUENCE order_number_seq AS bigint START 1;

CREATE TABLE orders (
  order_number         varchar(20) PRIMARY KEY,
  account_no           varchar(20) NOT NULL REFERENCES accounts (account_no),
  ship_to_code         varchar(20) NOT NULL,
  -- The ship-to as it was when the order was placed (name, address, country, tax fields).
  ship_to              jsonb NOT NULL,
  customer_reference   varchar(35),
  currency             char(3) NOT NULL,
  placed_at            timestamptz NOT NULL DEFAULT now(),
  net_amount           numeric(19,4) NOT NULL,
  tax_amount           numeric(19,4) NOT NULL,
  freight_amount       numeric(19,4) NOT NULL,
  total_amount         numeric(19,4) NOT NULL,
  -- The freight quote the order was priced with (method, agent, service, basis, packages).
  shipping             jsonb NOT NULL,
  -- ERP hand-off (transactional outbox: the job is enqueued in the transaction that inserts the order).
  erp_state            varchar(10) NOT NULL DEFAULT 'Queued' CHECK (erp_state IN ('Queued', 'Accepted', 'Refused')),
  erp_document_no      varchar(50),
  erp_reason           text,
  erp_attempts         integer NOT NULL DEFAULT 0,
  erp_last_attempt_at  timestamptz,
  erp_next_attempt_at  timestamptz,
  erp_settled_at       timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  changed_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_account_idx ON orders (account_no, placed_at DESC, order_number DESC);

-- Item lines (line_type 'Item') are 1..n in the order of the request; the freight charge is line n+1.
CREATE TABLE order_lines (
  order_line_id           uuid PRIMARY KEY,
  order_number            varchar(20) NOT NULL REFERENCES orders (order_number),
  line_number             integer NOT NULL,
  line_type               varchar(10) NOT NULL CHECK (line_type IN ('Item', 'Charge')),
  charge_type             varchar(20),
  sku                     varchar(20),
  description             varchar(100),
  quantity                integer NOT NULL CHECK (quantity >= 0),
  unit_price              numeric(19,4),
  line_discount_percent   numeric(19,4),
  line_amount             numeric(19,4) NOT NULL,
  tax_amount              numeric(19,4) NOT NULL,
  tax_rate_percent        numeric(19,4),
  tax_reason              text,
  -- Which rules set the price and discount, and the tax basis, as quoted.
  pricing                 jsonb,
  tax                     jsonb,
  -- Running totals reported by the ERP (PUT /trading/order-line-updates); never deltas.
  invoiced_quantity       integer NOT NULL DEFAULT 0 CHECK (invoiced_quantity >= 0),
  shipped_quantity        integer NOT NULL DEFAULT 0 CHECK (shipped_quantity >= 0),
  cancelled_quantity      integer NOT NULL DEFAULT 0 CHECK (cancelled_quantity >= 0),
  -- lastUpdatedAt of the update stored; an older one is ignored.
  fulfilment_updated_at   timestamptz,
  fulfilment_reference    varchar(50),
  created_at              timestamptz NOT NULL DEFAULT now(),
  changed_at              timestamptz NOT NULL DEFAULT now(),
  UNIQUE (order_number, line_number)
);

-- Idempotency-Key: the first answer to a key, per account, replayed for 24 hours.
CREATE TABLE order_requests (
  account_no       varchar(20) NOT NULL,
  idempotency_key  varchar(255) NOT NULL,
  body_hash        bytea NOT NULL,
  order_number     varchar(20) NOT NULL REFERENCES orders (order_number),
  response         text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_no, idempotency_key)
);
CREATE INDEX order_requests_created_idx ON order_requests (created_at);
