-- Up Migration
-- The People page (issue 27 item 2, docs/decisions.md "People"): an Administrator invites a
-- colleague with a role and may send the invitation again. Invitations stay provisioning requests,
-- sent by the job `customers.provision-user`.

ALTER TABLE provisioning_requests
  -- The role the link is made with; null (PUT /customer's `admin`) is an Administrator.
  ADD COLUMN role varchar(20) CHECK (role IS NULL OR role IN ('Administrator', 'Buyer', 'Viewer')),
  -- Who invited from the People page; null for the ERP's `admin`.
  ADD COLUMN invited_by uuid REFERENCES users (id),
  -- Each "Resend invitation" starts a new round: a new token (the old link stops working) and a
  -- new mail, whose id names the round, so each round's mail is still sent exactly once.
  ADD COLUMN invitation_round integer NOT NULL DEFAULT 1,
  -- Which mail the round sends, decided once by the job under the row's lock so a retry cannot
  -- send the other one: 'invitation' (a link to choose a password) or 'added' (the user already has
  -- a password: a mail saying they were added, and no link).
  ADD COLUMN mail_kind varchar(20) CHECK (mail_kind IS NULL OR mail_kind IN ('invitation', 'added'));

-- The People page lists an account's users; the public API's /account/users too.
CREATE INDEX user_accounts_account_idx ON user_accounts (account_no);
