-- Root's pool (docs/decisions.md §7): its Providers may be loopback or private addresses
-- (self-hosted models). Set by the writes that carry owner_is_root and served in the snapshot,
-- so the proxies apply the same rule at connect time. Never cleared: root stays root.
ALTER TABLE pool_versions ADD COLUMN owner_is_root boolean NOT NULL DEFAULT false;
