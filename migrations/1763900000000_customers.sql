-- Up Migration
-- Customer accounts and their ship-to addresses (a snapshot per account). Lengths are Portway's
-- choice where the interface gives none (docs/decisions.md, "Field lengths").
CREATE TABLE accounts (
  account_no                   varchar(20) PRIMARY KEY,
  name                         varchar(100) NOT NULL,
  status                       varchar(20) NOT NULL,
  payment_terms_code           varchar(10),
  bill_to_address1             varchar(100),
  bill_to_address2             varchar(100),
  bill_to_post_code            varchar(20),
  bill_to_city                 varchar(50),
  bill_to_state                varchar(50),
  bill_to_country_region_code  varchar(10),
  bill_to_country_region_name  varchar(50),
  phone_no                     varchar(30),
  email                        varchar(254),
  default_ship_to_code         varchar(20),
  primary_contact_no           varchar(20),
  credit_limit                 numeric(19,4),
  credit_balance               numeric(19,4),
  price_mode                   varchar(20),
  price_group                  varchar(20),
  disc_group                   varchar(20),
  allowed_brands               varchar(500),
  indent_brands                varchar(500),
  tax_liable                   boolean,
  tax_area_code                varchar(20),
  gst_business_posting_group   varchar(50),
  created_at                   timestamptz NOT NULL DEFAULT now(),
  changed_at                   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ship_tos (
  account_no                   varchar(20) NOT NULL REFERENCES accounts (account_no),
  ship_to_code                 varchar(20) NOT NULL,
  ship_to_name                 varchar(100),
  ship_to_address1             varchar(100),
  ship_to_address2             varchar(100),
  ship_to_post_code            varchar(20),
  ship_to_city                 varchar(50),
  ship_to_state                varchar(50),
  ship_to_country_region_code  varchar(10),
  tax_liable                   boolean,
  tax_area_code                varchar(20),
  is_first_nations             boolean,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  changed_at                   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_no, ship_to_code)
);

-- Portal users. An email signs in one user whatever its case.
CREATE TABLE users (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email       varchar(254) NOT NULL,
  name        varchar(100) NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE user_accounts (
  user_id     uuid NOT NULL REFERENCES users (id),
  account_no  varchar(20) NOT NULL REFERENCES accounts (account_no),
  role        varchar(20) NOT NULL DEFAULT 'admin',
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_no)
);

-- The transactional outbox for `admin`: one row per (account, admin email), written in the same
-- transaction as the account. Its job creates or links the user and sends one invitation.
CREATE TABLE provisioning_requests (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_no             varchar(20) NOT NULL REFERENCES accounts (account_no),
  email                  varchar(254) NOT NULL,
  name                   varchar(100) NOT NULL,
  requested_at           timestamptz NOT NULL DEFAULT now(),
  user_id                uuid REFERENCES users (id),
  linked_at              timestamptz,
  invitation_token_hash  bytea,
  invitation_expires_at  timestamptz,
  invitation_sent_at     timestamptz
);
CREATE UNIQUE INDEX provisioning_requests_account_email_key ON provisioning_requests (account_no, lower(email));
