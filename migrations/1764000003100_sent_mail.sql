-- Up Migration
-- Mail that went out, one row per logical message (src/platform/mail.ts `sendOnce`): the key is the
-- message's id (job kind and the entity's id, e.g. `invitation-42`), which is also its Message-ID.
-- The row is locked while the message is sent and `sent_at` committed right after the mail server
-- accepted it, so a retried or concurrently re-run job finds it and sends nothing.

CREATE TABLE sent_mail (
  mail_id     text PRIMARY KEY,
  created_at  timestamptz NOT NULL DEFAULT now(),
  sent_at     timestamptz
);
