-- Multi-tenant owners (docs/adr/0006-multi-tenant-owners.md), money edge cases and the operation
-- log's target types.

-- Names and e-mails are unique within a name scope: the owner whose tree the account is in, or
-- root's id for root and the owners (root manages them). With one tenant every row has root's
-- scope, the gateway-wide uniqueness of before; with several, a name used in one tenant tells
-- nothing about another.
ALTER TABLE accounts ADD COLUMN name_scope bigint;
UPDATE accounts SET name_scope = CASE
  WHEN is_root THEN id
  WHEN is_owner THEN parent_id
  ELSE owner_id
END;
ALTER TABLE accounts ALTER COLUMN name_scope SET NOT NULL;
ALTER TABLE accounts DROP CONSTRAINT accounts_name_key_key;
ALTER TABLE accounts DROP CONSTRAINT accounts_email_key_key;
CREATE UNIQUE INDEX accounts_scope_name_key ON accounts (name_scope, name_key);
CREATE UNIQUE INDEX accounts_scope_email_key ON accounts (name_scope, email_key);

-- Who set Suspended: only it or an account above it may lift it.
ALTER TABLE accounts ADD COLUMN suspended_by bigint;

-- A deleted account's unpaid usage moved to its parent (two legs, like a grant).
ALTER TABLE ledger DROP CONSTRAINT ledger_kind_check;
ALTER TABLE ledger ADD CONSTRAINT ledger_kind_check
  CHECK (kind IN ('mint', 'grant', 'clawback', 'usage', 'refund', 'fee', 'expire', 'debt'));

-- What target_id names (an account, a provider key, a configuration, news), and the owner whose
-- tree the target is in when the operator acted from outside it (root): that owner's log shows it.
ALTER TABLE operation_log ADD COLUMN target_type text NOT NULL DEFAULT 'account';
UPDATE operation_log SET target_type = 'key' WHERE action LIKE '%\_key';
UPDATE operation_log SET target_type = 'config' WHERE action LIKE '%\_config';
ALTER TABLE operation_log ADD COLUMN tenant_id bigint NOT NULL DEFAULT 0;
CREATE INDEX operation_log_tenant ON operation_log (tenant_id, id DESC) WHERE tenant_id <> 0;
