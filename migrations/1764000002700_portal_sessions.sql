-- Up Migration
-- The buyer portal's accounts and sign-in (issue 14): passwords, invitation acceptance, sessions and
-- password resets. Lifetimes and rules are in docs/decisions.md ("Buyer portal: accounts and sessions").

-- argon2id PHC string; NULL until the user accepts an invitation or resets a password.
ALTER TABLE users
  ADD COLUMN password_hash        text,
  ADD COLUMN password_changed_at  timestamptz;

-- An invitation link works once: acceptance is recorded here and the link is refused afterwards.
ALTER TABLE provisioning_requests ADD COLUMN invitation_accepted_at timestamptz;
CREATE UNIQUE INDEX provisioning_requests_invitation_token_key
  ON provisioning_requests (invitation_token_hash) WHERE invitation_token_hash IS NOT NULL;

-- A signed-in browser. The cookie carries 32 random bytes; only their sha256 is stored, so a copy
-- of this table signs nobody in. account_no is NULL while a user linked to several accounts has not
-- chosen one yet.
CREATE TABLE portal_sessions (
  id_hash       bytea PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES users (id),
  account_no    varchar(20) REFERENCES accounts (account_no),
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- Written at most once a minute (sliding idle expiry without a write per request).
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  -- The absolute end, whatever the activity.
  expires_at    timestamptz NOT NULL
);
CREATE INDEX portal_sessions_user_idx ON portal_sessions (user_id);
CREATE INDEX portal_sessions_expires_idx ON portal_sessions (expires_at);

-- "Forgot password": one row per request, written with the job that mails the link (transactional
-- outbox, as provisioning_requests). The job issues the token and stores only its sha256.
CREATE TABLE password_resets (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES users (id),
  requested_at  timestamptz NOT NULL DEFAULT now(),
  token_hash    bytea,
  expires_at    timestamptz,
  sent_at       timestamptz,
  used_at       timestamptz
);
CREATE UNIQUE INDEX password_resets_token_key ON password_resets (token_hash) WHERE token_hash IS NOT NULL;
CREATE INDEX password_resets_user_idx ON password_resets (user_id);
