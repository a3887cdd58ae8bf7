-- 0044: each alert check also carries where, which way and when its read was: the collector,
-- its site at arrival, the camera, the direction and the capture time, written by ingest in
-- the same statement as the detection (batch-sql.ts storeDetections). A hub with any
-- watchlist scope read them back from detections and collectors in one more statement per
-- alert batch (watchlists/read-context-sql.ts), in the alert transaction that every live
-- alert waits on. Items queued by an older hub have NULLs: the worker still looks those up.
ALTER TABLE alert_queue ADD COLUMN IF NOT EXISTS collector_id uuid;
ALTER TABLE alert_queue ADD COLUMN IF NOT EXISTS site_id uuid;
ALTER TABLE alert_queue ADD COLUMN IF NOT EXISTS camera_id text;
ALTER TABLE alert_queue ADD COLUMN IF NOT EXISTS direction text;
ALTER TABLE alert_queue ADD COLUMN IF NOT EXISTS captured_at timestamptz;
