-- Accounts schema: the account tree, key hashes, credit lots, the money ledger, the operation log.
-- Money columns are bigint nano-USD.

CREATE TABLE accounts (
  id               bigserial PRIMARY KEY,
  parent_id        bigint REFERENCES accounts (id),
  owner_id         bigint,
  dna              text NOT NULL UNIQUE,
  name             text NOT NULL,
  name_key         text NOT NULL UNIQUE,   -- NFKC + lower case: look-alike names collide
  email            text NOT NULL,
  email_key        text NOT NULL UNIQUE,   -- trimmed + lower case
  alias            text NOT NULL DEFAULT '',
  billing_email    text NOT NULL DEFAULT '',
  qr_code          text NOT NULL DEFAULT '',
  is_owner         boolean NOT NULL DEFAULT false,
  is_root          boolean NOT NULL DEFAULT false,
  level            integer NOT NULL DEFAULT 0,
  gear             integer NOT NULL DEFAULT 0,
  role             integer NOT NULL DEFAULT 0,
  tier             integer NOT NULL DEFAULT 0,
  factor           numeric(20, 9) NOT NULL DEFAULT 1,
  rates            numeric(20, 9) NOT NULL DEFAULT 1,
  status           boolean NOT NULL DEFAULT true,
  suspended        boolean NOT NULL DEFAULT false,
  spend_blocked    boolean NOT NULL DEFAULT false,
  hard_limit_nano  bigint NOT NULL DEFAULT 0 CHECK (hard_limit_nano >= 0),
  soft_limit_nano  bigint NOT NULL DEFAULT 0 CHECK (soft_limit_nano >= 0),
  daily_limit_nano bigint NOT NULL DEFAULT 0 CHECK (daily_limit_nano >= 0),
  user_limit_nano  bigint NOT NULL DEFAULT 0 CHECK (user_limit_nano >= 0),
  auto_quota_nano  bigint NOT NULL DEFAULT 0 CHECK (auto_quota_nano >= 0),
  rpm              bigint NOT NULL DEFAULT 0,
  rph              bigint NOT NULL DEFAULT 0,
  rpd              bigint NOT NULL DEFAULT 0,
  tpm              bigint NOT NULL DEFAULT 0,
  tph              bigint NOT NULL DEFAULT 0,
  tpd              bigint NOT NULL DEFAULT 0,
  allow_ips        text NOT NULL DEFAULT '',
  allow_models     text NOT NULL DEFAULT '',
  allow_levels     text NOT NULL DEFAULT '',
  resources        text NOT NULL DEFAULT '',
  model_limits     jsonb NOT NULL DEFAULT '{}'::jsonb,
  model_mapper     text NOT NULL DEFAULT '',
  level_mapper     text NOT NULL DEFAULT '',
  key_hash         text NOT NULL UNIQUE,   -- SHA-256 of the API key; the key itself is never stored
  key_prefix       text NOT NULL,
  key_last4        text NOT NULL,
  key_last_used_at timestamptz,
  day_spend_nano   bigint NOT NULL DEFAULT 0,
  day_start        date,
  month_spend_nano bigint NOT NULL DEFAULT 0,
  month_start      date,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX accounts_one_root ON accounts (is_root) WHERE is_root;
CREATE INDEX accounts_parent ON accounts (parent_id);
CREATE INDEX accounts_dna_prefix ON accounts (dna text_pattern_ops);

-- Every movement of money is one row here; the idempotency key makes a retry a no-op.
CREATE TABLE ledger (
  id               bigserial PRIMARY KEY,
  idempotency_key  text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('mint', 'grant', 'clawback', 'usage', 'refund', 'fee', 'expire')),
  account_id       bigint NOT NULL REFERENCES accounts (id),
  counterparty_id  bigint REFERENCES accounts (id),
  amount_nano      bigint NOT NULL,        -- signed, from account_id's point of view
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (idempotency_key, account_id, kind)
);

-- Credit lots: balance is the sum of unexpired remainders; spending takes the earliest expiry.
CREATE TABLE credit_lots (
  id               bigserial PRIMARY KEY,
  account_id       bigint NOT NULL REFERENCES accounts (id),
  granted_nano     bigint NOT NULL CHECK (granted_nano > 0),
  remaining_nano   bigint NOT NULL CHECK (remaining_nano >= 0),
  expires_at       timestamptz NOT NULL,
  ledger_id        bigint NOT NULL REFERENCES ledger (id),
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX credit_lots_spendable ON credit_lots (account_id, expires_at) WHERE remaining_nano > 0;
