-- Subaccount management: soft delete, post-paid debt, soft-limit alert bookkeeping and the
-- Idempotency-Key table of money-moving management calls (docs/decisions.md §3).

-- A deleted account keeps its row (its ledger rows reference it); it leaves every lookup, its
-- name, e-mail and key are freed, and its key hash no longer authenticates.
ALTER TABLE accounts ADD COLUMN deleted_at timestamptz;

-- Post-paid usage (docs/decisions.md §1): what a Debit could not take from unexpired lots. The balance is
-- Σ unexpired lot remainders − debt_nano; credit arriving later settles the debt first.
ALTER TABLE accounts ADD COLUMN debt_nano bigint NOT NULL DEFAULT 0 CHECK (debt_nano >= 0);

-- The month (first day) whose SoftLimit alert was already enqueued.
ALTER TABLE accounts ADD COLUMN soft_alert_month date;

CREATE INDEX accounts_live_parent ON accounts (parent_id) WHERE deleted_at IS NULL;

-- One row per (caller, Idempotency-Key), written in the same transaction as the money movement.
CREATE TABLE idempotency_keys (
  caller_id     bigint NOT NULL REFERENCES accounts (id),
  key           text NOT NULL,
  request_hash  text NOT NULL,
  operation     text NOT NULL,
  response      text NOT NULL,           -- the first answer, as the domain returned it (JSON, no secrets)
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (caller_id, key)
);
