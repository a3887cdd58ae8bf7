-- 0015: every distinct plate the hub has seen, for fuzzy search (docs/search.md "How it
-- runs"). Fuzzy search finds the similar plates here (a trigram index over their OCR
-- confusion keys, one entry per plate instead of one per sighting), then reads each plate's
-- sightings newest first from detections' (plate_normalized, captured_at) index, so a plate
-- seen 70,000 times costs one page, not 70,000 rows sorted.
CREATE TABLE IF NOT EXISTS plates (
  plate_normalized varchar(20) PRIMARY KEY
);
CREATE INDEX IF NOT EXISTS plates_confusion_trgm_idx ON plates USING gin (alpr_confusion_key(plate_normalized) gin_trgm_ops);

-- Filled by the database itself on every insert path (batch ingest, webhooks, tools): one
-- statement per INSERT over its new rows; a plate already known costs one index probe.
CREATE OR REPLACE FUNCTION detections_note_plates() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO plates (plate_normalized)
  SELECT DISTINCT n.plate_normalized FROM new_rows n ORDER BY 1
  ON CONFLICT (plate_normalized) DO NOTHING;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER detections_note_plates
  AFTER INSERT ON detections REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION detections_note_plates();

INSERT INTO plates (plate_normalized)
SELECT DISTINCT plate_normalized FROM detections ORDER BY 1
ON CONFLICT (plate_normalized) DO NOTHING;

-- The per-sighting confusion index is no longer read: every upload stops paying for it.
DROP INDEX IF EXISTS detections_confusion_trgm_idx;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- Read and add only (0008 grants more on every table when migrations run again).
    REVOKE ALL ON plates FROM alpr_app;
    GRANT SELECT, INSERT ON plates TO alpr_app;
  END IF;
END
$$;
