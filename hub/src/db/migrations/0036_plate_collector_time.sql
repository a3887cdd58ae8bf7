-- 0036: a plate's sightings at given collectors, newest first, without reading its sightings
-- elsewhere (docs/search.md "How it runs").
--
-- An exact (or fuzzy, or one-edit) search limited to one collector used to walk every
-- sighting of the plate through (plate_normalized, captured_at) and fetch each row to test its
-- collector: a plate seen 25,000 times read 23,000 table pages to keep the 265 taken at one
-- site, over 4 s on a table just loaded (docs/performance.md "Search"). With the collector in
-- the key the search reads only those 265. The older index stays: a search over every
-- collector reads a plate newest first from it and stops after one page.
CREATE INDEX IF NOT EXISTS detections_plate_collector_captured_idx ON detections (plate_normalized, collector_id, captured_at);
