-- News schema: items with a scope and an expiry. Who may post to a target is decided before an
-- item reaches this table (the edge asks accounts); this table only stores and selects.

CREATE TABLE news_items (
  id          bigserial PRIMARY KEY,
  scope       text NOT NULL CHECK (scope IN ('system', 'user', 'dna')),
  -- user news: the account it is for; dna news: the DNA path (".<id>.<id>.") whose subtree sees it.
  account_id  bigint,
  dna         text,
  title       text NOT NULL,
  content     text NOT NULL,
  author_id   bigint NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  CHECK ((scope = 'system' AND account_id IS NULL AND dna IS NULL)
      OR (scope = 'user' AND account_id IS NOT NULL AND dna IS NULL)
      OR (scope = 'dna' AND account_id IS NULL AND dna IS NOT NULL))
);

CREATE INDEX news_items_user ON news_items (account_id, expires_at) WHERE scope = 'user';
CREATE INDEX news_items_dna ON news_items (dna, expires_at) WHERE scope = 'dna';
CREATE INDEX news_items_system ON news_items (expires_at) WHERE scope = 'system';
