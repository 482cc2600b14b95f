-- The author's DNA path: a caller deletes only what it or an account below it posted. Items from
-- before it was kept have none and count as their author id's alone.
ALTER TABLE news_items ADD COLUMN author_dna text;

-- Posting is capped per author: its recent posts and its live items per target are counted.
CREATE INDEX news_items_author ON news_items (author_id, created_at);
