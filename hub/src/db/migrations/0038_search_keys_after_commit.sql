-- 0038: search keys built after commit (docs/search.md "Keys built after commit").
--
-- Until now every stored detection also wrote its trigram postings (0037) and, for a new
-- plate, its one-edit keys (0025) in the batch transaction, through triggers: about 720
-- bytes of postings a read, and 4-collector ingest fell from ~2,670 to ~1,700 reads a second
-- (issue 49). The batch now stores only what a read needs (the read, its chain link, its
-- image index, its plate in `plates` and its alerting work); a key builder
-- (hub/src/search/key-builder.ts) writes the keys a moment later, in bulk.
--
-- Design: a durable cursor on detections.id plus a commit horizon, not a queue table. Ids are
-- drawn from one sequence but batches commit out of id order, so the builder only passes ids
-- below a settled horizon (the same rule as webhook detection events,
-- hub/src/webhooks/detection-horizon.ts). Chosen over a queue table the batch would insert
-- into: that table costs every read one more heap row, one more index entry and later a
-- delete and a vacuum, in the very transaction this migration lightens; the cursor costs
-- ingest nothing. And "keyed" is then one fact, `id <= last_pk`, which a search reads once
-- and uses on both sides (keys up to the cursor, plain indexes past it), so a read is found
-- exactly once whatever the builder does meanwhile (hub/src/db/unkeyed-reads.ts).
--
-- One row: every detection with id <= last_pk has its trigram postings and its plate's
-- one-edit keys; none above it has postings. The builder writes a page's keys and moves the
-- row in one transaction, so a kill leaves both as they were.
CREATE TABLE IF NOT EXISTS search_key_cursor (
  -- Always true: the table holds one row.
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  last_pk    bigint NOT NULL CHECK (last_pk >= 0),
  -- When the builder last wrote keys or found nothing to do (the lag's clock, docs/health.md).
  updated_at timestamptz NOT NULL
);

-- The triggers go first: DROP TRIGGER waits for every batch in flight on detections (it takes
-- the table's exclusive lock, held to the end of this migration), so each detection committed
-- before it was keyed by them, and max(id) read after it sees them all. Every detection
-- stored before this migration was keyed by those triggers (0037 and 0025 backfilled the ones
-- before them), so the builder starts past them; a detection stored after has no trigger.
DROP TRIGGER IF EXISTS detections_note_trigrams ON detections;
DROP TRIGGER IF EXISTS plates_note_edit_keys ON plates;
DROP FUNCTION IF EXISTS detections_note_trigrams();
DROP FUNCTION IF EXISTS plates_note_edit_keys();
INSERT INTO search_key_cursor (id, last_pk, updated_at)
SELECT true, COALESCE((SELECT max(id) FROM detections), 0), now()
ON CONFLICT (id) DO NOTHING;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON search_key_cursor TO alpr_app;
  END IF;
END
$$;
