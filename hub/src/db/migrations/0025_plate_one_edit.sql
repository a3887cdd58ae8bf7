-- 0025: one-edit plate search and watchlists that forgive one misread (docs/search.md
-- "One edit", docs/watchlists.md "Forgive one misread").
--
-- The deletion neighbourhood of every distinct plate's confusion key: the key itself and
-- each copy with one character removed (an 8-character plate: 9 rows). A query's own
-- neighbourhood (at most 21 keys) then finds every plate within one substitution, insertion
-- or deletion through this primary key, one index probe per key, instead of comparing every
-- plate. Per distinct plate (the `plates` table of 0015), not per sighting: a plate seen
-- 70,000 times has its 9 rows once. Candidates include some two edits away (a
-- transposition shares a neighbour); the search checks each one (hub/src/search/one-edit.ts).
CREATE TABLE IF NOT EXISTS plate_edit_keys (
  edit_key varchar(20) NOT NULL,
  plate_normalized varchar(20) NOT NULL REFERENCES plates (plate_normalized) ON DELETE CASCADE,
  PRIMARY KEY (edit_key, plate_normalized)
);

-- Written by the database on every new distinct plate, whatever path inserted the
-- detection: the 0015 trigger adds the plate, this one its keys, in the same statement. A
-- plate already known adds nothing here (ON CONFLICT DO NOTHING leaves it out of new_plates).
CREATE OR REPLACE FUNCTION plates_note_edit_keys() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO plate_edit_keys (edit_key, plate_normalized)
  SELECT DISTINCT k.edit_key, n.plate_normalized
  FROM new_plates n
  CROSS JOIN LATERAL (SELECT alpr_confusion_key(n.plate_normalized) AS key) c
  CROSS JOIN LATERAL (
    SELECT c.key AS edit_key
    UNION
    SELECT overlay(c.key PLACING '' FROM i FOR 1) FROM generate_series(1, char_length(c.key)) AS i
  ) k
  ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER plates_note_edit_keys
  AFTER INSERT ON plates REFERENCING NEW TABLE AS new_plates
  FOR EACH STATEMENT EXECUTE FUNCTION plates_note_edit_keys();

-- Backfill the plates stored before this migration, once: migrations run on every start, and
-- from then on the trigger keeps the table complete, so a non-empty table needs nothing.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM plate_edit_keys LIMIT 1) THEN
    INSERT INTO plate_edit_keys (edit_key, plate_normalized)
    SELECT DISTINCT k.edit_key, p.plate_normalized
    FROM plates p
    CROSS JOIN LATERAL (SELECT alpr_confusion_key(p.plate_normalized) AS key) c
    CROSS JOIN LATERAL (
      SELECT c.key AS edit_key
      UNION
      SELECT overlay(c.key PLACING '' FROM i FOR 1) FROM generate_series(1, char_length(c.key)) AS i
    ) k
    ON CONFLICT DO NOTHING;
  END IF;
END
$$;

-- Per watchlist, opt-in (off by default): also alert on a read one substitution, insertion
-- or deletion away from an entry, any character (docs/watchlists.md).
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS forgive_one_misread boolean NOT NULL DEFAULT false;

-- An alert raised that way says so: match_kind 'one_edit' (the entry snapshot's `match`
-- names the differing character). Replaced only while the old check lacks it, so a restart
-- does not re-validate every alert.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_constraint WHERE conname = 'alerts_match_kind_check' AND pg_get_constraintdef(oid) LIKE '%one_edit%'
  ) THEN
    ALTER TABLE alerts DROP CONSTRAINT IF EXISTS alerts_match_kind_check;
    ALTER TABLE alerts ADD CONSTRAINT alerts_match_kind_check CHECK (match_kind IN ('exact', 'ocr', 'one_edit'));
  END IF;
END
$$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- Read and add only, like plates (0015): the trigger inserts as the inserting role.
    REVOKE ALL ON plate_edit_keys FROM alpr_app;
    GRANT SELECT, INSERT ON plate_edit_keys TO alpr_app;
  END IF;
END
$$;
