-- The system-wide settings (root's POST /x-conf switches): one row for the whole gateway, its
-- version bumped by every change (gw.system.updated carries it).
CREATE TABLE system_settings (
  id          integer PRIMARY KEY CHECK (id = 1),
  log_enable  boolean NOT NULL DEFAULT true,
  version     bigint NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
