-- Up Migration
-- Public API keys (decisions §4). Only the SHA-256 of a key is stored; the row is found by the
-- key's non-secret lookup id, never by the secret. A NULL rate limit or window means "the service
-- default" (600 requests per 60 s), so a later change of the default reaches every key without one.
CREATE TABLE api_keys (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  lookup_id      varchar(11) NOT NULL,
  secret_hash    bytea NOT NULL CHECK (octet_length(secret_hash) = 32),
  kind           varchar(20) NOT NULL CHECK (kind IN ('integrator', 'customer')),
  account_no     varchar(20) REFERENCES accounts (account_no),
  name           varchar(100),
  rate_limit     integer CHECK (rate_limit > 0),
  rate_window_s  integer CHECK (rate_window_s > 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz,
  revoked_at     timestamptz,
  -- A customer key is bound to exactly one account; an integrator key names its customer per request.
  CONSTRAINT api_keys_account_by_kind CHECK ((kind = 'customer') = (account_no IS NOT NULL))
);
CREATE UNIQUE INDEX api_keys_lookup_id_key ON api_keys (lookup_id);
