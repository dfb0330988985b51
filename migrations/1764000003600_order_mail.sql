-- Up Migration
-- Mail that keeps the buyer informed (issue 26 item 8): an order confirmation to the portal user who
-- placed an order, and a despatch notice when order-line updates first make the order Part shipped
-- and when they make it Shipped (docs/decisions.md "Order mail").

-- The portal user who placed the order. NULL for orders placed through the public API: an API key
-- acts for an account, not for a person, and those orders get no mail.
ALTER TABLE orders ADD COLUMN placed_by_user_id uuid REFERENCES users (id);

-- "Email me despatch notices" on the portal's account page: on unless the user turns it off.
ALTER TABLE users ADD COLUMN despatch_notices boolean NOT NULL DEFAULT true;

-- One row per despatch notice raised: an order and the status an update batch took it to. Written,
-- with the job that mails it, in the batch's transaction; the primary key makes each transition
-- raise one notice however often the ERP re-sends its updates. `lines` is what the notice tells:
-- each item line's ordered quantity, what shipped in that batch and what has shipped so far.
CREATE TABLE order_despatch_notices (
  order_number  varchar(20) NOT NULL REFERENCES orders (order_number),
  status        varchar(12) NOT NULL CHECK (status IN ('PartShipped', 'Shipped')),
  raised_at     timestamptz NOT NULL DEFAULT now(),
  lines         jsonb NOT NULL,
  PRIMARY KEY (order_number, status)
);
