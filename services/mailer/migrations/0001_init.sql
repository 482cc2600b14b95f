-- Mailer schema: the delivery log, one row per attempt. It never holds a message's secret parts
-- (codes, tokens, keys) nor a remote server's own text: `error` is in our words with the SMTP
-- status code.

CREATE TABLE deliveries (
  id          bigserial PRIMARY KEY,
  job_id      text NOT NULL,
  template    text NOT NULL,
  recipient   text NOT NULL,
  owner_id    bigint,
  attempt     integer NOT NULL,
  -- sent | written (an .eml file) | retrying | dead
  status      text NOT NULL CHECK (status IN ('sent', 'written', 'retrying', 'dead')),
  transport   text NOT NULL,
  error       text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX deliveries_job ON deliveries (job_id, id);
CREATE INDEX deliveries_recipient ON deliveries (recipient, id);
