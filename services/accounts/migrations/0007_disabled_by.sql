-- Who set Status false: only that account or one above it may enable the account again.
ALTER TABLE accounts ADD COLUMN disabled_by bigint;
