-- Up Migration
-- The buyer portal's basket (issue 14): one per user and account, kept in the database so it survives
-- signing out and follows the buyer to another device. Lines are per SKU, in the order first added.

CREATE TABLE baskets (
  user_id             uuid NOT NULL REFERENCES users (id),
  account_no          varchar(20) NOT NULL REFERENCES accounts (account_no),
  -- The checkout choices, kept with the basket; NULL until chosen.
  ship_to_code        varchar(20),
  customer_reference  varchar(35),
  -- Raised by every change: an order placed from the basket names the version it priced.
  version             bigint NOT NULL DEFAULT 1,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_no)
);

CREATE TABLE basket_lines (
  user_id     uuid NOT NULL,
  account_no  varchar(20) NOT NULL,
  sku         varchar(20) NOT NULL,
  quantity    integer NOT NULL CHECK (quantity > 0),
  -- The order lines were first added in: the basket's and its quote's line order.
  position    bigint GENERATED ALWAYS AS IDENTITY,
  added_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_no, sku),
  FOREIGN KEY (user_id, account_no) REFERENCES baskets (user_id, account_no) ON DELETE CASCADE
);
