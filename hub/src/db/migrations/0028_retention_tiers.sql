-- 0028: retention in tiers (docs/retention.md "Tiers"; ADR 0007). Reads that matched
-- nothing and are under no hold record may go after a short period (24 hours to 90 days),
-- from the middle of a collector's hash chain. Each removed row leaves a tombstone: its
-- chain position, the hash it followed and its own record hash, and no plate, camera, time
-- or image. The verifier walks detections and tombstones together, so every kept record is
-- still checked against the hash before it, and the head still matches.

CREATE TABLE IF NOT EXISTS chain_tombstones (
  collector_id uuid NOT NULL REFERENCES collectors (id),
  chain_seq    bigint NOT NULL CHECK (chain_seq >= 1),
  prev_hash    char(64) NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  record_hash  char(64) NOT NULL CHECK (record_hash ~ '^[0-9a-f]{64}$'),
  -- The non-hit cutoff of the run that removed it (not the read's capture time).
  cutoff       timestamptz NOT NULL,
  removed_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (collector_id, chain_seq)
);
-- Write-once like the detections they stand for: only the retention functions below (as
-- the owner, with alpr.retention on) delete one, once a checkpoint has passed it.
CREATE OR REPLACE TRIGGER chain_tombstones_write_once
  BEFORE UPDATE OR DELETE ON chain_tombstones
  FOR EACH ROW EXECUTE FUNCTION write_once_guard();
CREATE OR REPLACE TRIGGER chain_tombstones_no_truncate
  BEFORE TRUNCATE ON chain_tombstones
  FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard();

-- Removes up to p_limit reads captured before p_cutoff (in no set order: a sort would make
-- every round of a first run over years re-read all that is left) that no alert and no
-- hold record (active or ended) references and whose watchlist matching has finished (an
-- alert queue item still pending, processing or failed keeps its read: it may yet be a hit).
-- Writes a tombstone per row in the same statement order, deletes their finished queue
-- items, and returns one row per collector with the image hashes the removed rows named
-- (the caller decides which images are no longer used). The floor is an hour, not a year:
-- this tier exists to forget innocent reads fast; an hour leaves room for clock skew
-- between the hub and the database and for matching to finish.
CREATE OR REPLACE FUNCTION retention_remove_non_hits(p_cutoff timestamptz, p_limit integer)
RETURNS TABLE (collector_id uuid, removed bigint, from_seq bigint, upto_seq bigint, images text[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
BEGIN
  IF p_cutoff IS NULL OR p_cutoff > now() - interval '1 hour' THEN
    RAISE EXCEPTION 'non-hit retention cutoff % refused: reads are kept at least an hour', p_cutoff;
  END IF;
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 100000 THEN
    RAISE EXCEPTION 'p_limit must be between 1 and 100000, got %', p_limit;
  END IF;
  -- One run at a time, and never beside a prefix cut (which reads the same chains).
  PERFORM pg_advisory_xact_lock(hashtext('retention_remove_detections'));
  DROP TABLE IF EXISTS pg_temp.retention_non_hits;
  CREATE TEMP TABLE retention_non_hits ON COMMIT DROP AS
    SELECT d.id, d.captured_at, d.collector_id, d.chain_seq, d.prev_hash, d.record_hash, d.full_image_hash, d.crop_image_hash
      FROM detections d
     WHERE d.captured_at < p_cutoff
       AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.detection_id = d.id)
       AND NOT EXISTS (SELECT 1 FROM legal_holds lh WHERE lh.detection_id = d.id)
       AND NOT EXISTS (SELECT 1 FROM alert_queue q WHERE q.detection_id = d.id AND q.status <> 'complete')
     LIMIT p_limit;

  INSERT INTO chain_tombstones (collector_id, chain_seq, prev_hash, record_hash, cutoff)
  SELECT r.collector_id, r.chain_seq, r.prev_hash, r.record_hash, p_cutoff FROM retention_non_hits r;
  DELETE FROM alert_queue q USING retention_non_hits r WHERE q.detection_id = r.id;
  PERFORM set_config('alpr.retention', 'on', true);
  -- detection_keys rows follow by cascade.
  DELETE FROM detections d USING retention_non_hits r WHERE d.id = r.id AND d.captured_at = r.captured_at;
  PERFORM set_config('alpr.retention', 'off', true);

  RETURN QUERY
    SELECT r.collector_id, count(DISTINCT r.chain_seq)::bigint, min(r.chain_seq), max(r.chain_seq),
           coalesce(array_agg(DISTINCT v.h::text) FILTER (WHERE v.h IS NOT NULL), '{}'::text[])
      FROM retention_non_hits r
      CROSS JOIN LATERAL (VALUES (r.full_image_hash), (r.crop_image_hash)) AS v(h)
     GROUP BY r.collector_id ORDER BY r.collector_id;
END
$$;

-- As in 0014, and a cut may now end on a tombstone: its hash comes from there.
CREATE OR REPLACE FUNCTION retention_detection_cuts(p_cutoff timestamptz)
RETURNS TABLE (collector_id uuid, from_seq bigint, upto_seq bigint, upto_hash char(64))
LANGUAGE plpgsql STABLE SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
  r       record;
  v_from  bigint;
  v_block bigint;
  v_upto  bigint;
BEGIN
  FOR r IN SELECT h.collector_id AS id, h.last_seq FROM collector_chain_heads h ORDER BY h.collector_id LOOP
    SELECT coalesce(max(c.chain_seq), 0) INTO v_from FROM chain_checkpoints c WHERE c.collector_id = r.id;
    CONTINUE WHEN r.last_seq <= v_from;
    SELECT d.chain_seq INTO v_block FROM detections d
     WHERE d.collector_id = r.id AND d.chain_seq > v_from
       AND (d.captured_at >= p_cutoff OR EXISTS (SELECT 1 FROM legal_holds lh WHERE lh.detection_id = d.id))
     ORDER BY d.chain_seq LIMIT 1;
    v_upto := coalesce(v_block - 1, r.last_seq);
    CONTINUE WHEN v_upto <= v_from;
    collector_id := r.id;
    from_seq := v_from + 1;
    upto_seq := v_upto;
    upto_hash := NULL;
    SELECT d.record_hash INTO upto_hash FROM detections d WHERE d.collector_id = r.id AND d.chain_seq = v_upto;
    IF upto_hash IS NULL THEN
      SELECT t.record_hash INTO upto_hash FROM chain_tombstones t WHERE t.collector_id = r.id AND t.chain_seq = v_upto;
    END IF;
    IF upto_hash IS NULL THEN
      RAISE EXCEPTION 'collector % has no record at chain position %: verify its chain before retention', r.id, v_upto;
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;

-- As in 0014, and the tombstones a new checkpoint passes go with the cut (the checkpoint's
-- hash now vouches for them), so tombstones never outlive the detections period. A chain
-- that starts with tombstones is cut up to its first kept record whatever its age: such a
-- cut removes no row and turns the leading tombstones into one checkpoint. Each cut now
-- reports the rows it removed, not the positions it covers (the checkpoint keeps those).
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
    -- Read by the verifier; written only by retention_remove_non_hits: a forged tombstone
    -- could stand in for a record that should be there.
    REVOKE ALL ON chain_tombstones FROM alpr_app;
    GRANT SELECT ON chain_tombstones TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_remove_non_hits(timestamptz, integer) TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_detection_cuts(timestamptz) TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_remove_detections(timestamptz) TO alpr_app;
  END IF;
END
$$;
