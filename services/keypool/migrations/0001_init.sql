-- Keypool schema: each owner's provider keys and the pool version proxies follow.
-- Secrets are never stored in plaintext: secret_enc and config_secrets_enc are AES-256-GCM
-- ciphers bound to the owner id; only the last 4 characters are kept for masked display.

CREATE TABLE provider_keys (
  id                 bigserial PRIMARY KEY,
  owner_id           bigint NOT NULL,
  name               text NOT NULL DEFAULT '',
  level              integer NOT NULL CHECK (level >= 0),
  provider           text NOT NULL,
  provider_host      text NOT NULL,          -- lower-case host name, for the provider filter
  secret_enc         text NOT NULL,
  secret_last4       text NOT NULL,
  status             boolean NOT NULL DEFAULT true,
  provider_type      text NOT NULL DEFAULT 'standard' CHECK (provider_type IN ('standard', 'cloud_a', 'cloud_b')),
  config             jsonb NOT NULL DEFAULT '{}'::jsonb,   -- the non-sensitive Config fields
  config_secrets_enc text NOT NULL DEFAULT '',             -- cipher of the sensitive ones (private_key)
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX provider_keys_owner ON provider_keys (owner_id, id);
CREATE INDEX provider_keys_owner_host ON provider_keys (owner_id, provider_host);

-- Bumped in the same transaction as every change of the owner's keys.
CREATE TABLE pool_versions (
  owner_id  bigint PRIMARY KEY,
  version   bigint NOT NULL
);

-- One cipher of a fixed text: at start, a GW_SECRET_KEY that cannot open it stops the process
-- with a clear error instead of serving undecryptable (or silently re-encrypted) secrets.
CREATE TABLE key_check (
  id      integer PRIMARY KEY CHECK (id = 1),
  cipher  text NOT NULL
);
