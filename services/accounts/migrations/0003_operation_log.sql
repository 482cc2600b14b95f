-- The operation log, written from gw.audit.* events (any service may publish one). The event id
-- makes a redelivered event a no-op. No secret is ever stored here.
CREATE TABLE operation_log (
  id           bigserial PRIMARY KEY,
  event_id     text NOT NULL UNIQUE,
  action       text NOT NULL,
  operator_id  bigint NOT NULL,
  target_id    bigint NOT NULL DEFAULT 0,
  details      text NOT NULL DEFAULT '',
  ip_address   text NOT NULL DEFAULT '',
  status       text NOT NULL DEFAULT 'success',
  created_at   timestamptz NOT NULL
);

CREATE INDEX operation_log_operator ON operation_log (operator_id, id DESC);
CREATE INDEX operation_log_target ON operation_log (target_id, id DESC);
