-- 0021: each alert check carries its detection's normalized plate, written by ingest in the
-- same statement as the detection (batch-sql.ts storeDetections). The alert worker matched
-- by joining every claimed item back to the partitioned detections table, one probe per
-- item across the partitions: a fifth of the server's time spent on alerts under four
-- collectors (docs/performance.md). Items queued by an older hub have no plate (NULL): the
-- worker still looks those up (alerts/raise.ts).
ALTER TABLE alert_queue ADD COLUMN IF NOT EXISTS plate_normalized text;
