-- Up Migration
-- Customer ledger entries. Dates are `date`: date-only values never pass through a time zone.
CREATE TABLE ledger_entries (
  entry_no              bigint PRIMARY KEY,
  account_no            varchar(20) NOT NULL,
  document_no           varchar(20) NOT NULL,
  external_document_no  varchar(35),
  document_type         varchar(20) NOT NULL,
  origin_type           varchar(20) NOT NULL,
  document_date         date NOT NULL,
  due_date              date,
  posting_date          date NOT NULL,
  amount                numeric(19,4),
  remaining_amount      numeric(19,4),
  currency_code         varchar(3),
  related_order_no      varchar(20),
  is_open               boolean,
  credit_balance        numeric(19,4),
  created_at            timestamptz NOT NULL DEFAULT now(),
  changed_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_no, posting_date);
