-- 0029: signed outgoing webhooks (docs/webhooks.md).
-- A target: where to POST, the signing secret (kept in clear: HMAC needs it; shown once at
-- creation, never listed), which events, an optional filter, and the last outcome so the
-- dashboard can show a failing target without scanning its deliveries.
CREATE TABLE IF NOT EXISTS webhook_targets (
  id              uuid PRIMARY KEY,
  name            text NOT NULL,
  url             text NOT NULL,
  secret          text NOT NULL,
  events          text[] NOT NULL,
  filter          jsonb NOT NULL DEFAULT '{}'::jsonb,
  enabled         boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  last_status     integer,
  last_error      text
);

-- One row per event and target: the durable queue the delivery worker claims from. The body
-- is fixed when the event is queued, so every retry sends the same bytes under the same
-- `message_id` (the webhook-id header receivers dedupe on); only the timestamp and the
-- signature over it change per attempt.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id            bigserial PRIMARY KEY,
  target_id     uuid NOT NULL REFERENCES webhook_targets (id) ON DELETE CASCADE,
  message_id    text NOT NULL UNIQUE,
  event_type    text NOT NULL,
  -- What the event is about (`alert:<id>`, `test:<uuid>`): a re-run of the hook never queues
  -- one event twice for a target.
  event_key     text NOT NULL,
  body          text NOT NULL,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'sent', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  next_retry_at timestamptz NOT NULL,
  locked_at     timestamptz,
  last_status   integer,
  last_error    text,
  created_at    timestamptz NOT NULL,
  sent_at       timestamptz,
  UNIQUE (target_id, event_key)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_idx ON webhook_deliveries (next_retry_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_processing_idx ON webhook_deliveries (locked_at) WHERE status = 'processing';
CREATE INDEX IF NOT EXISTS webhook_deliveries_target_idx ON webhook_deliveries (target_id, id DESC);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_targets, webhook_deliveries TO alpr_app;
    GRANT USAGE, SELECT ON SEQUENCE webhook_deliveries_id_seq TO alpr_app;
  END IF;
END
$$;
