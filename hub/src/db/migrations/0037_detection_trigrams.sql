-- 0037: every sighting's plate trigrams, in time order (docs/search.md "Patterns from
-- trigram postings").
--
-- A pattern such as `*12X*` or `*XYZ` found its rows through the trigram GIN index, which
-- keeps no order and always rechecks: every match was a table row fetched, and a busy pattern
-- fetched 10,000 of them to count to the cap, about 110 ms from a cold disk at 10 M rows
-- (docs/performance.md "Patterns from trigram postings"). Here each sighting has one row per
-- distinct three-character run of its plate, keyed (trigram, captured_at, id) and carrying the
-- plate and the collector: a pattern with one such run reads one key range of this index,
-- newest first, checks the full pattern and the collector on the entry itself, and counts
-- and pages without touching `detections` until the page's own 50 rows.
--
-- The trigrams of a plate, by character (a Cyrillic letter is one), each once. The same as
-- hub/src/search/trigram-postings.ts `plateTrigrams`.
CREATE OR REPLACE FUNCTION alpr_plate_trigrams(plate text) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(DISTINCT substr(plate, i, 3)), '{}') FROM generate_series(1, char_length(plate) - 2) AS i $$;

-- Insert-only in practice, so the visibility map (which index-only scans need) is kept fresh
-- by vacuuming after 1 % new rows instead of PostgreSQL's default 20 %.
CREATE TABLE IF NOT EXISTS detection_trigrams (
  trigram          text NOT NULL,
  captured_at      timestamptz(3) NOT NULL,
  id               bigint NOT NULL,
  collector_id     uuid NOT NULL,
  plate_normalized varchar(20) NOT NULL
) WITH (autovacuum_vacuum_insert_scale_factor = 0.01);

-- The sightings stored before this migration, once (the migration is recorded when done),
-- and the index built after them in one sorted pass.
INSERT INTO detection_trigrams (trigram, captured_at, id, collector_id, plate_normalized)
SELECT g.trigram, d.captured_at, d.id, d.collector_id, d.plate_normalized
  FROM detections d CROSS JOIN LATERAL unnest(alpr_plate_trigrams(d.plate_normalized)) AS g (trigram)
 WHERE NOT EXISTS (SELECT 1 FROM detection_trigrams LIMIT 1);
CREATE UNIQUE INDEX IF NOT EXISTS detection_trigrams_postings_idx
  ON detection_trigrams (trigram, captured_at, id) INCLUDE (plate_normalized, collector_id);

-- Written by the database on every insert path, in the inserting statement, like plates
-- (0015). Rows moved out of detections_default keep their id and time, so their postings
-- stay right (0009 moves them with triggers off).
CREATE OR REPLACE FUNCTION detections_note_trigrams() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO detection_trigrams (trigram, captured_at, id, collector_id, plate_normalized)
  SELECT g.trigram, n.captured_at, n.id, n.collector_id, n.plate_normalized
    FROM new_rows n CROSS JOIN LATERAL unnest(alpr_plate_trigrams(n.plate_normalized)) AS g (trigram);
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER detections_note_trigrams
  AFTER INSERT ON detections REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION detections_note_trigrams();

-- A row removed by retention (only the retention functions can delete one) takes its
-- postings with it: a pattern must never count a read that is gone.
CREATE OR REPLACE FUNCTION detections_forget_trigrams() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM detection_trigrams t USING old_rows o
   WHERE t.trigram = ANY (alpr_plate_trigrams(o.plate_normalized)) AND t.captured_at = o.captured_at AND t.id = o.id;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER detections_forget_trigrams
  AFTER DELETE ON detections REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION detections_forget_trigrams();

-- As in 0028, and a month's partition dropped whole takes its postings with it.
CREATE OR REPLACE FUNCTION retention_remove_detections(p_cutoff timestamptz)
RETURNS TABLE (kind text, name text, from_seq bigint, upto_seq bigint, removed bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  v_part  record;
  v_lo    timestamptz;
  v_hi    timestamptz;
  v_month timestamp;
  v_left  boolean;
  v_n     bigint;
BEGIN
  IF p_cutoff IS NULL OR p_cutoff > now() - interval '1 year' THEN
    RAISE EXCEPTION 'retention cutoff % refused: detections are kept at least a year', p_cutoff;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('retention_remove_detections'));
  DROP TABLE IF EXISTS pg_temp.retention_cuts, pg_temp.retention_ids;
  CREATE TEMP TABLE retention_cuts ON COMMIT DROP AS SELECT * FROM retention_detection_cuts(p_cutoff);
  CREATE TEMP TABLE retention_ids ON COMMIT DROP AS
    SELECT d.id, d.captured_at, d.collector_id FROM detections d
      JOIN retention_cuts c ON d.collector_id = c.collector_id AND d.chain_seq BETWEEN c.from_seq AND c.upto_seq;
  CREATE INDEX ON retention_ids (id);
  ANALYZE retention_ids;
  DROP TABLE IF EXISTS pg_temp.retention_cut_rows;
  CREATE TEMP TABLE retention_cut_rows ON COMMIT DROP AS
    SELECT r.collector_id, count(*)::bigint AS n FROM retention_ids r GROUP BY r.collector_id;

  DELETE FROM notification_queue q USING alerts a, retention_ids r WHERE q.alert_id = a.id AND a.detection_id = r.id;
  DELETE FROM alerts a USING retention_ids r WHERE a.detection_id = r.id;
  DELETE FROM alert_queue q USING retention_ids r WHERE q.detection_id = r.id;

  PERFORM set_config('alpr.retention', 'on', true);
  FOR v_part IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'detections'::regclass AND c.relname ~ '^detections_y[0-9]{4}m[0-9]{2}$'
     ORDER BY c.relname
  LOOP
    v_month := make_timestamp(substr(v_part.relname, 13, 4)::int, substr(v_part.relname, 18, 2)::int, 1, 0, 0, 0);
    v_lo := v_month AT TIME ZONE 'UTC';
    v_hi := (v_month + interval '1 month') AT TIME ZONE 'UTC';
    CONTINUE WHEN v_hi > p_cutoff;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I p WHERE NOT EXISTS (SELECT 1 FROM retention_ids r WHERE r.id = p.id))', v_part.relname)
      INTO v_left;
    CONTINUE WHEN v_left;
    DELETE FROM detection_keys k USING retention_ids r
     WHERE k.detection_pk = r.id AND r.captured_at >= v_lo AND r.captured_at < v_hi;
    -- DROP fires no row trigger: the month's postings go here, one index probe per trigram.
    EXECUTE format('DELETE FROM detection_trigrams t USING %I p '
                   'WHERE t.trigram = ANY (alpr_plate_trigrams(p.plate_normalized)) AND t.captured_at = p.captured_at AND t.id = p.id', v_part.relname);
    EXECUTE format('ALTER TABLE detections DETACH PARTITION %I', v_part.relname);
    EXECUTE format('DROP TABLE %I', v_part.relname);
    DELETE FROM retention_ids r WHERE r.captured_at >= v_lo AND r.captured_at < v_hi;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    kind := 'partition'; name := v_part.relname; from_seq := NULL; upto_seq := NULL; removed := v_n;
    RETURN NEXT;
  END LOOP;

  DELETE FROM detections d USING retention_ids r WHERE d.id = r.id AND d.captured_at = r.captured_at;
  DELETE FROM chain_tombstones t USING retention_cuts c WHERE t.collector_id = c.collector_id AND t.chain_seq <= c.upto_seq;
  PERFORM set_config('alpr.retention', 'off', true);

  INSERT INTO chain_checkpoints (collector_id, chain_seq, record_hash, removed, cutoff)
  SELECT c.collector_id, c.upto_seq, c.upto_hash, c.upto_seq - c.from_seq + 1, p_cutoff FROM retention_cuts c;
  RETURN QUERY SELECT 'chain'::text, c.collector_id::text, c.from_seq, c.upto_seq, coalesce(n.n, 0)
    FROM retention_cuts c LEFT JOIN retention_cut_rows n ON n.collector_id = c.collector_id ORDER BY c.collector_id;
END
$$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- Read and add only, like plates: the triggers write as the inserting role, and only the
    -- retention functions (as the owner) remove.
    REVOKE ALL ON detection_trigrams FROM alpr_app;
    GRANT SELECT, INSERT ON detection_trigrams TO alpr_app;
  END IF;
END
$$;
