-- 0024: health alerts (docs/health.md). Three small folded tables the evaluator reads, and the
-- alerts themselves.
--
-- Reads per camera per hour, folded at ingest in the detections' own statement (one row a
-- camera and hour, by the hour the hub received them): a camera's usual rate for an hour of
-- the week is the median of that hour over the last 4 weeks, so 5 weeks are kept (840 rows a
-- camera), not every detection scanned.
CREATE TABLE IF NOT EXISTS camera_read_hours (
  collector_id uuid NOT NULL REFERENCES collectors (id) ON DELETE CASCADE,
  camera_id    text NOT NULL,
  hour         timestamptz NOT NULL,
  reads        integer NOT NULL CHECK (reads >= 1),
  PRIMARY KEY (collector_id, camera_id, hour)
);
-- When a camera first and last read, so "no reads for 60 minutes" and "at least 2 weeks of
-- history" need one row a camera, not a scan.
CREATE TABLE IF NOT EXISTS camera_read_spans (
  collector_id  uuid NOT NULL REFERENCES collectors (id) ON DELETE CASCADE,
  camera_id     text NOT NULL,
  first_read_at timestamptz NOT NULL,
  last_read_at  timestamptz NOT NULL,
  PRIMARY KEY (collector_id, camera_id)
);
-- A collector's upload load per minute (the load thresholds): requests, failed requests,
-- items, rejected items, the largest batch and the largest request body. Kept 1 day.
CREATE TABLE IF NOT EXISTS collector_load_minutes (
  collector_id      uuid NOT NULL REFERENCES collectors (id) ON DELETE CASCADE,
  minute            timestamptz NOT NULL,
  requests          integer NOT NULL DEFAULT 0,
  failed_requests   integer NOT NULL DEFAULT 0,
  items             integer NOT NULL DEFAULT 0,
  rejected_items    integer NOT NULL DEFAULT 0,
  max_batch_items   integer NOT NULL DEFAULT 0,
  max_request_bytes bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (collector_id, minute)
);
-- One row per health alert, kept after it closes (the history). At most one open alert per
-- kind, collector and camera: the unique index is what makes "open once" hold even with two
-- evaluators running.
CREATE TABLE IF NOT EXISTS health_alerts (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  collector_id uuid NOT NULL REFERENCES collectors (id) ON DELETE CASCADE,
  camera_id    text,
  camera_name  text,
  opened_at    timestamptz NOT NULL,
  closed_at    timestamptz,
  message      text NOT NULL,
  detail       jsonb NOT NULL DEFAULT '{}'::jsonb,
  CHECK (closed_at IS NULL OR closed_at >= opened_at)
);
CREATE UNIQUE INDEX IF NOT EXISTS health_alerts_one_open ON health_alerts (kind, collector_id, COALESCE(camera_id, '')) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS health_alerts_collector_idx ON health_alerts (collector_id, id DESC);
-- A health alert's opening or closing for each admin's linked bot chat, queued in the
-- evaluator's transaction (so a crash neither loses nor doubles one) and sent by the health
-- sender (health/bot.ts): pending -> sent, or failed after 5 tries.
CREATE TABLE IF NOT EXISTS health_alert_messages (
  id              bigserial PRIMARY KEY,
  health_alert_id bigint NOT NULL REFERENCES health_alerts (id) ON DELETE CASCADE,
  event           text NOT NULL CHECK (event IN ('opened', 'closed')),
  chat_id         bigint NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  sent_at         timestamptz,
  last_error      text,
  UNIQUE (health_alert_id, event, chat_id)
);
CREATE INDEX IF NOT EXISTS health_alert_messages_pending_idx ON health_alert_messages (next_attempt_at) WHERE status = 'pending';
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON camera_read_hours, camera_read_spans, collector_load_minutes, health_alerts, health_alert_messages TO alpr_app;
    GRANT USAGE, SELECT ON SEQUENCE health_alerts_id_seq, health_alert_messages_id_seq TO alpr_app;
  END IF;
END
$$;
