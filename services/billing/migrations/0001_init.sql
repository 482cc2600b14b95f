-- Billing schema: one record per usage event (the event id is the key, so a redelivered event is
-- recorded once) and rollups per account × UTC day × model, updated in the same transaction as
-- the records they count and only for records newly inserted, so rollups always equal records.

CREATE TABLE usage_records (
  event_id           text PRIMARY KEY,
  account_id         bigint NOT NULL,
  owner_id           bigint NOT NULL,
  model              text NOT NULL,
  day                date NOT NULL,
  at                 timestamptz NOT NULL,
  prompt_tokens      bigint NOT NULL,
  completion_tokens  bigint NOT NULL,
  cached_tokens      bigint NOT NULL,
  cost_nano          bigint NOT NULL CHECK (cost_nano >= 0),
  -- priced at GW_FALLBACK_PRICE: the model was in no price table
  fallback_price     boolean NOT NULL,
  partial            boolean NOT NULL,
  estimated          boolean NOT NULL,
  recorded_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX usage_records_account_day ON usage_records (account_id, day);

CREATE TABLE usage_rollups (
  account_id         bigint NOT NULL,
  day                date NOT NULL,
  model              text NOT NULL,
  requests           bigint NOT NULL,
  prompt_tokens      bigint NOT NULL,
  completion_tokens  bigint NOT NULL,
  cached_tokens      bigint NOT NULL,
  cost_nano          bigint NOT NULL,
  PRIMARY KEY (account_id, day, model)
);
