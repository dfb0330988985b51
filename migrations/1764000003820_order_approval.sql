-- Up Migration
-- Order limits and approval (issue 27 item 3): an order a Buyer places in the portal over their
-- order limit is submitted for approval instead of being handed to the ERP (docs/decisions.md
-- "Orders over a limit").
--
-- approval_state: NULL for an order never subject to approval (every order before this, every
-- order of the public API, every order within its buyer's limit); else AwaitingApproval until an
-- Administrator approves or declines it or its buyer withdraws it. Only an order whose state is
-- NULL or Approved is placed: listed by the API, counted, handed to the ERP.
ALTER TABLE orders
  ADD COLUMN approval_state varchar(20)
    CHECK (approval_state IS NULL OR approval_state IN ('AwaitingApproval', 'Approved', 'Declined', 'Withdrawn')),
  -- When its buyer submitted it (placed_at becomes the approval's instant, when it is re-priced).
  ADD COLUMN submitted_at timestamptz,
  -- Who approved, declined or withdrew it, when, and the decline's reason.
  ADD COLUMN decided_by_user_id uuid REFERENCES users (id),
  ADD COLUMN decided_at timestamptz,
  ADD COLUMN decided_reason varchar(500);

-- 'Held': an order not to be handed to the ERP (awaiting approval, declined or withdrawn). The
-- hand-off only ever sends a Queued order, so a stray job for a held order sends nothing; approval
-- turns Held into Queued and enqueues the hand-off in the same transaction.
ALTER TABLE orders DROP CONSTRAINT orders_erp_state_check;
ALTER TABLE orders ADD CONSTRAINT orders_erp_state_check CHECK (erp_state IN ('Held', 'Queued', 'Accepted', 'Refused'));

-- The Approvals page: an account's orders awaiting approval, oldest submission first.
CREATE INDEX orders_awaiting_approval_idx ON orders (account_no, submitted_at) WHERE approval_state = 'AwaitingApproval';
