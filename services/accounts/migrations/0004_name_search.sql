-- Partial-name search (`GET /x-dna?name=`) through a trigram index when pg_trgm can be installed
-- (PostgreSQL with contrib). Where it cannot (embedded PGlite, or a role without the right),
-- the search still works, as a scan of the caller's subtree.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA accounts;
  CREATE INDEX IF NOT EXISTS accounts_name_trgm ON accounts.accounts USING gin (name_key accounts.gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm unavailable (%): partial-name search runs without an index', SQLERRM;
END
$$;
