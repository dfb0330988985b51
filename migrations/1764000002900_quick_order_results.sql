-- Up Migration
-- A quick order whose pasted lines were not all added (issue 14): the good ones went to the basket,
-- and what the page shows about it (the lines added, the lines not added with their reasons) waits
-- here for the page the form redirects to (post, redirect, get), so reloading that page never sends
-- the pasted lines again. One per user and account, like the basket; read once.

CREATE TABLE quick_order_results (
  user_id     uuid NOT NULL,
  account_no  varchar(20) NOT NULL,
  result      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_no),
  FOREIGN KEY (user_id, account_no) REFERENCES baskets (user_id, account_no) ON DELETE CASCADE
);
