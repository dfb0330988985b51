-- Up Migration
-- Every link mailed stays valid (docs/decisions.md "Mail sent once"). The invitation and password
-- reset jobs issue a fresh random token on each send attempt and store only its SHA-256. A worker
-- that dies after the mail server accepted a mail and before sendOnce recorded it sends the mail
-- again on the retry, with a new token; until now that second token replaced the first, so the
-- link in the first mail (the one the person usually opens) answered "not found".
--
-- These tables keep every token hash issued: an invitation's for its round (a "Resend invitation"
-- starts a new round, whose links are the only ones valid), a reset's for its request. They are
-- written by triggers on the columns the jobs already set, so a process of the previous release
-- (which sets only the column) records its links too during a rollout, and the column keeps
-- holding the newest hash for that release's readers.

CREATE TABLE invitation_links (
  token_hash  bytea PRIMARY KEY,
  request_id  bigint NOT NULL REFERENCES provisioning_requests (id) ON DELETE CASCADE,
  round       integer NOT NULL,
  issued_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitation_links_request_idx ON invitation_links (request_id);

CREATE TABLE password_reset_links (
  token_hash  bytea PRIMARY KEY,
  reset_id    bigint NOT NULL REFERENCES password_resets (id) ON DELETE CASCADE,
  issued_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_reset_links_reset_idx ON password_reset_links (reset_id);

CREATE FUNCTION invitation_links_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO invitation_links (token_hash, request_id, round)
  VALUES (NEW.invitation_token_hash, NEW.id, NEW.invitation_round)
  ON CONFLICT (token_hash) DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER provisioning_requests_keep_links
  AFTER INSERT OR UPDATE OF invitation_token_hash ON provisioning_requests
  FOR EACH ROW WHEN (NEW.invitation_token_hash IS NOT NULL)
  EXECUTE FUNCTION invitation_links_keep();

CREATE FUNCTION password_reset_links_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO password_reset_links (token_hash, reset_id)
  VALUES (NEW.token_hash, NEW.id)
  ON CONFLICT (token_hash) DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER password_resets_keep_links
  AFTER INSERT OR UPDATE OF token_hash ON password_resets
  FOR EACH ROW WHEN (NEW.token_hash IS NOT NULL)
  EXECUTE FUNCTION password_reset_links_keep();

-- The links mailed before this release.
INSERT INTO invitation_links (token_hash, request_id, round)
SELECT invitation_token_hash, id, invitation_round FROM provisioning_requests WHERE invitation_token_hash IS NOT NULL;
INSERT INTO password_reset_links (token_hash, reset_id)
SELECT token_hash, id FROM password_resets WHERE token_hash IS NOT NULL;
