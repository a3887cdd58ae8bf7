-- 0014: retention (docs/retention.md). Detections are removed as a prefix of each
-- collector's hash chain, never from its middle, and the cut is recorded as a write-once
-- checkpoint the chain verifier starts from. Only the owner may delete write-once rows, and
-- only inside the SECURITY DEFINER functions below, which refuse anything younger than a year
-- or under a legal hold: the hub's role can ask for retention, not for a deletion of its choice.

-- The guard lets one thing through: a DELETE by the table's owner while the transaction-local
-- flag `alpr.retention` is on, which only the retention functions set. The hub's own role
-- (alpr_app) holds no DELETE privilege on these tables, so setting the flag gains it nothing.
CREATE OR REPLACE FUNCTION write_once_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('alpr.retention', true) = 'on'
     AND current_user = (SELECT pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = TG_RELID) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '% is write-once: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation';
END
$$;

-- Where each collector's chain now starts: the last removed record's position and hash.
CREATE TABLE IF NOT EXISTS chain_checkpoints (
  collector_id uuid NOT NULL REFERENCES collectors (id),
  chain_seq    bigint NOT NULL CHECK (chain_seq >= 1),
  record_hash  char(64) NOT NULL CHECK (record_hash ~ '^[0-9a-f]{64}$'),
  -- Records removed by this cut (from the previous checkpoint + 1 up to chain_seq).
  removed      bigint NOT NULL CHECK (removed >= 1),
  cutoff       timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (collector_id, chain_seq)
);
CREATE OR REPLACE TRIGGER chain_checkpoints_write_once
  BEFORE UPDATE OR DELETE ON chain_checkpoints
  FOR EACH ROW EXECUTE FUNCTION write_once_guard();
CREATE OR REPLACE TRIGGER chain_checkpoints_no_truncate
  BEFORE TRUNCATE ON chain_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard();

-- Images removed after their year, so a link to one answers 410 Gone instead of 404.
CREATE TABLE IF NOT EXISTS removed_images (
  sha256     char(64) PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  removed_at timestamptz NOT NULL DEFAULT now()
);

-- How far image retention has looked (capture time): each run reads only the new day.
CREATE TABLE IF NOT EXISTS retention_progress (
  kind       text PRIMARY KEY,
  done_until timestamptz NOT NULL
);

-- The prefix of each collector's chain that may go: from after its last checkpoint up to the
-- record before the first one captured at or after p_cutoff or referenced by any legal hold
-- record (active or ended: a hold record keeps its detection for as long as it exists).
-- Reads only; the dry run and the removal both use it.
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
    -- Walks the collector's chain index from the checkpoint: the rows it passes are the ones
    -- that go, so the cost is the size of the cut, not of the chain.
    SELECT d.chain_seq INTO v_block FROM detections d
     WHERE d.collector_id = r.id AND d.chain_seq > v_from
       AND (d.captured_at >= p_cutoff OR EXISTS (SELECT 1 FROM legal_holds lh WHERE lh.detection_id = d.id))
     ORDER BY d.chain_seq LIMIT 1;
    v_upto := coalesce(v_block - 1, r.last_seq);
    CONTINUE WHEN v_upto <= v_from;
    collector_id := r.id;
    from_seq := v_from + 1;
    upto_seq := v_upto;
    SELECT d.record_hash INTO upto_hash FROM detections d WHERE d.collector_id = r.id AND d.chain_seq = v_upto;
    IF upto_hash IS NULL THEN
      RAISE EXCEPTION 'collector % has no record at chain position %: verify its chain before retention', r.id, v_upto;
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;

-- Removes every cut prefix with what hangs off it (alert queue items, alerts and their
-- notifications), drops each monthly partition that is left with nothing outside the cuts
-- (DETACH + DROP: no row-by-row delete), deletes the remaining rows one by one, and records a
-- checkpoint per collector. Returns one row per collector cut and one per dropped partition.
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
    SELECT d.id, d.captured_at FROM detections d
      JOIN retention_cuts c ON d.collector_id = c.collector_id AND d.chain_seq BETWEEN c.from_seq AND c.upto_seq;
  CREATE INDEX ON retention_ids (id);
  ANALYZE retention_ids;

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
    -- The keys point at the partition's rows: they go first, then the month goes whole.
    DELETE FROM detection_keys k USING retention_ids r
     WHERE k.detection_pk = r.id AND r.captured_at >= v_lo AND r.captured_at < v_hi;
    EXECUTE format('ALTER TABLE detections DETACH PARTITION %I', v_part.relname);
    EXECUTE format('DROP TABLE %I', v_part.relname);
    DELETE FROM retention_ids r WHERE r.captured_at >= v_lo AND r.captured_at < v_hi;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    kind := 'partition'; name := v_part.relname; from_seq := NULL; upto_seq := NULL; removed := v_n;
    RETURN NEXT;
  END LOOP;

  -- Whatever sits in months that stay: row by row (detection_keys follow by cascade).
  DELETE FROM detections d USING retention_ids r WHERE d.id = r.id AND d.captured_at = r.captured_at;
  PERFORM set_config('alpr.retention', 'off', true);

  INSERT INTO chain_checkpoints (collector_id, chain_seq, record_hash, removed, cutoff)
  SELECT c.collector_id, c.upto_seq, c.upto_hash, c.upto_seq - c.from_seq + 1, p_cutoff FROM retention_cuts c;
  RETURN QUERY SELECT 'chain'::text, c.collector_id::text, c.from_seq, c.upto_seq, c.upto_seq - c.from_seq + 1
    FROM retention_cuts c ORDER BY c.collector_id;
END
$$;

-- The audit log after its years (7 by default): write-once, so only through here.
CREATE OR REPLACE FUNCTION retention_remove_audit(p_cutoff timestamptz)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_n bigint;
BEGIN
  IF p_cutoff IS NULL OR p_cutoff > now() - interval '1 year' THEN
    RAISE EXCEPTION 'retention cutoff % refused: the audit log is kept at least a year', p_cutoff;
  END IF;
  PERFORM set_config('alpr.retention', 'on', true);
  DELETE FROM audit_log WHERE at < p_cutoff;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  PERFORM set_config('alpr.retention', 'off', true);
  RETURN v_n;
END
$$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- Checkpoints are written by retention_remove_detections only: a forged one would let a
    -- verification start past records it should check.
    REVOKE ALL ON chain_checkpoints FROM alpr_app;
    GRANT SELECT ON chain_checkpoints TO alpr_app;
    GRANT SELECT, INSERT, UPDATE, DELETE ON removed_images, retention_progress TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_detection_cuts(timestamptz) TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_remove_detections(timestamptz) TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_remove_audit(timestamptz) TO alpr_app;
  END IF;
END
$$;
