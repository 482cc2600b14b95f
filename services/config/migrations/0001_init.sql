-- Config schema: each owner's configuration values and the version caches follow.
-- EMAIL_PASS is stored only as an AES-256-GCM cipher bound to the owner id.

CREATE TABLE owner_configs (
  owner_id    bigint NOT NULL,
  key         text NOT NULL CHECK (key IN ('MODEL_MAPPER', 'MODEL_FAILOVER', 'LEVEL_MAPPER', 'SWITCH_OVER', 'RESOURCES', 'MODEL_LIMITS',
                                           'PRICING', 'SVC_MAIL', 'EMAIL_SMTP', 'EMAIL_PORT', 'EMAIL_AUTH', 'EMAIL_PASS', 'EMAIL_TLS')),
  value       text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner_id, key)
);

-- Bumped in the same transaction as every change of the owner's configuration.
CREATE TABLE config_versions (
  owner_id  bigint PRIMARY KEY,
  version   bigint NOT NULL
);

-- One cipher of a fixed text: at start, a GW_SECRET_KEY that cannot open it stops the process
-- with a clear error instead of serving undecryptable (or silently re-encrypted) secrets.
CREATE TABLE key_check (
  id      integer PRIMARY KEY CHECK (id = 1),
  cipher  text NOT NULL
);
