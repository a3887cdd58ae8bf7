-- 0016: the (collector_id, captured_at) index also carries each row's plate and id, so the
-- convoy investigation (plates seen at the same collector within minutes of a target's
-- sightings, docs/search.md) reads the index only, without a heap fetch per neighbour: at 10
-- million rows that fetch was most of its time (docs/performance.md "Search"). Built beside
-- the old index, which then goes.
CREATE INDEX IF NOT EXISTS detections_collector_captured_cover_idx ON detections (collector_id, captured_at) INCLUDE (plate_normalized, id);
DROP INDEX IF EXISTS detections_collector_captured_idx;
