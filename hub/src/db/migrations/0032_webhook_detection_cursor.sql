-- 0032: detection events for webhook targets (docs/webhooks.md "Detection events").
-- One row: the highest detection id (detections.id, drawn from detections_id_seq) whose
-- `detection.stored` deliveries are queued. The worker reads the detections above it in id
-- order, queues their deliveries and moves it in one transaction, so a crash neither loses
-- nor doubles an event. It starts at the newest stored detection: history is never replayed.
CREATE TABLE IF NOT EXISTS webhook_detection_cursor (
  -- Always true: the table holds one row.
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  last_pk    bigint NOT NULL CHECK (last_pk >= 0),
  updated_at timestamptz NOT NULL
);
INSERT INTO webhook_detection_cursor (id, last_pk, updated_at)
SELECT true, COALESCE((SELECT max(detection_pk) FROM detection_keys), 0), now()
ON CONFLICT (id) DO NOTHING;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_detection_cursor TO alpr_app;
  END IF;
END
$$;
