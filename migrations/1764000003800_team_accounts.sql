-- Team accounts (issue 27): a role per user and account, a membership an Administrator can
-- deactivate, a Buyer's per-order limit, each user's last sign-in, and the account's activity.
--
-- Every user linked so far was provisioned as the account's `admin` (PUT /customer): they become
-- its Administrators. The default stays Administrator, so a link made without a role (provisioning)
-- is one; the People page always names the role it gives.
UPDATE user_accounts SET role = 'Administrator';
ALTER TABLE user_accounts
  ALTER COLUMN role SET DEFAULT 'Administrator',
  ADD CONSTRAINT user_accounts_role_check CHECK (role IN ('Administrator', 'Buyer', 'Viewer')),
  -- Set while the user may not act for the account: their sessions for it end at once.
  ADD COLUMN deactivated_at timestamptz,
  -- A Buyer's limit per order, total including tax and freight, in the site currency; null: none.
  ADD COLUMN order_limit numeric(19, 4) CHECK (order_limit IS NULL OR order_limit >= 0);

ALTER TABLE users ADD COLUMN last_sign_in_at timestamptz;

-- Who did what in an account, newest first; kept 13 months, then purged by housekeeping.
CREATE TABLE account_activity (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_no       varchar(20) NOT NULL REFERENCES accounts (account_no),
  at               timestamptz NOT NULL DEFAULT now(),
  -- Who acted; null for the system (e.g. an ERP push).
  actor_user_id    uuid REFERENCES users (id),
  kind             varchar(40) NOT NULL,
  -- The user acted on (invited, role changed, deactivated, limit set), if any.
  subject_user_id  uuid REFERENCES users (id),
  order_number     varchar(20),
  -- What the page needs to say it: a role's old and new value, a limit, a reason.
  details          jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX account_activity_account_idx ON account_activity (account_no, at DESC, id DESC);
CREATE INDEX account_activity_at_idx ON account_activity (at);
