-- 0046: sealed trigram postings in blocks (docs/search.md "Postings sealed in blocks").
--
-- A row of detection_trigrams (0037) costs about 144 bytes for one posting: a heap tuple and an
-- index entry that both carry the trigram, the time, the id, the collector and the plate.
-- At 2 M reads the postings took 2,268 MB, more than the reads themselves (issue 49). Here
-- the postings settle in two tiers, as in a log-structured index:
--   - fresh: detection_trigrams, written by the key builder a second after commit, one row a
--     posting, as before;
--   - sealed: trigram_blocks, one row per trigram and run of up to 1,024 postings, newest
--     first, held as parallel arrays (time, id, collector, plate). A block of more than 2 KB
--     is compressed by PostgreSQL itself (TOAST); a posting then costs about 30 bytes.
-- The sealer (hub/src/search/posting-blocks.ts) moves the fresh postings into level-0 blocks
-- once the builder has keyed a set number of reads past the last seal, and merges a trigram's
-- blocks of one level into larger blocks of the next once there are 8 of them, so a trigram
-- ends with few large blocks; each move is one statement in one transaction (a DELETE ...
-- RETURNING feeding the new blocks), so a search, in one snapshot, sees every posting once.
--
-- Blocks may overlap in time (a camera with a wrong clock, a backlog drained late): a search
-- reads them newest block first until it has what it needs, then every block that could hold
-- something newer than the oldest of those (hub/src/search/postings-page.ts).
CREATE TABLE IF NOT EXISTS trigram_blocks (
  trigram       text NOT NULL,
  -- The block's newest posting (its first) and its oldest (its last).
  newest_at     timestamptz(3) NOT NULL,
  newest_id     bigint NOT NULL,
  oldest_at     timestamptz(3) NOT NULL,
  -- 0: sealed from the fresh tier; n + 1: merged from 8 blocks of level n.
  level         smallint NOT NULL CHECK (level BETWEEN 0 AND 9),
  n             integer NOT NULL CHECK (n BETWEEN 1 AND 4096),
  captured_ats  timestamptz[] NOT NULL,
  ids           bigint[] NOT NULL,
  collector_ids uuid[] NOT NULL,
  plates        text[] NOT NULL,
  PRIMARY KEY (trigram, newest_at, newest_id)
);
CREATE INDEX IF NOT EXISTS trigram_blocks_level_idx ON trigram_blocks (level, trigram);

-- One row: every detection with id <= sealed_pk has its postings in trigram_blocks (none in
-- detection_trigrams). Apart from search_key_cursor so the builder's row lock and the
-- sealer's never wait on each other.
CREATE TABLE IF NOT EXISTS trigram_block_seal (
  id        boolean PRIMARY KEY DEFAULT true CHECK (id),
  sealed_pk bigint NOT NULL CHECK (sealed_pk >= 0),
  sealed_at timestamptz NOT NULL
);
INSERT INTO trigram_block_seal (id, sealed_pk, sealed_at) VALUES (true, 0, now()) ON CONFLICT (id) DO NOTHING;

-- The postings a caller put in pg_temp.trigram_block_packing, written as blocks of at most
-- p_cap, newest first, one run per (trigram, level, grp); the table is emptied. Returns the
-- postings written. The one place blocks are made: seal, merge and retention fill the table.
CREATE OR REPLACE FUNCTION trigram_blocks_pack(p_cap integer) RETURNS bigint
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  v_n bigint;
BEGIN
  IF p_cap IS NULL OR p_cap < 1 OR p_cap > 4096 THEN
    RAISE EXCEPTION 'block size % refused: 1 to 4,096 postings', p_cap;
  END IF;
  WITH numbered AS (
    SELECT p.*, (row_number() OVER (PARTITION BY p.trigram, p.level, p.grp ORDER BY p.captured_at DESC, p.id DESC) - 1) / p_cap AS part
      FROM trigram_block_packing p
  ), blocks AS (
    SELECT b.trigram, b.level, count(*)::int AS n,
           array_agg(b.captured_at ORDER BY b.captured_at DESC, b.id DESC) AS captured_ats,
           array_agg(b.id ORDER BY b.captured_at DESC, b.id DESC) AS ids,
           array_agg(b.collector_id ORDER BY b.captured_at DESC, b.id DESC) AS collector_ids,
           array_agg(b.plate_normalized ORDER BY b.captured_at DESC, b.id DESC) AS plates
      FROM numbered b GROUP BY b.trigram, b.level, b.grp, b.part
  ), written AS (
    INSERT INTO trigram_blocks (trigram, newest_at, newest_id, oldest_at, level, n, captured_ats, ids, collector_ids, plates)
    SELECT k.trigram, k.captured_ats[1], k.ids[1], k.captured_ats[k.n], k.level, k.n, k.captured_ats, k.ids, k.collector_ids, k.plates
      FROM blocks k
    RETURNING n
  )
  SELECT coalesce(sum(w.n), 0) INTO v_n FROM written w;
  TRUNCATE trigram_block_packing;
  RETURN v_n;
END
$$;

CREATE OR REPLACE FUNCTION trigram_blocks_packing() RETURNS void
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  IF to_regclass('pg_temp.trigram_block_packing') IS NULL THEN
    CREATE TEMP TABLE trigram_block_packing (
      trigram text NOT NULL, level smallint NOT NULL, grp bigint NOT NULL,
      captured_at timestamptz(3) NOT NULL, id bigint NOT NULL, collector_id uuid NOT NULL, plate_normalized text NOT NULL
    ) ON COMMIT DELETE ROWS;
  END IF;
END
$$;

-- Seal: the fresh postings of reads up to p_upto whose trigram is in (p_after, p_through]
-- (NULL: no bound) become level-0 blocks, in one statement. Held off by retention like the
-- builder (0038), so retention never removes a posting while it is on its way into a block.
CREATE OR REPLACE FUNCTION trigram_blocks_seal(p_upto bigint, p_after text, p_through text, p_cap integer) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('retention_remove_detections'));
  PERFORM trigram_blocks_packing();
  WITH moved AS (
    DELETE FROM detection_trigrams t
     WHERE t.id <= p_upto AND (p_after IS NULL OR t.trigram > p_after) AND (p_through IS NULL OR t.trigram <= p_through)
    RETURNING t.trigram, t.captured_at, t.id, t.collector_id, t.plate_normalized
  )
  INSERT INTO trigram_block_packing SELECT m.trigram, 0, 0, m.captured_at, m.id, m.collector_id, m.plate_normalized FROM moved m;
  RETURN trigram_blocks_pack(p_cap);
END
$$;

-- Merge: every block of level p_level of the trigrams named becomes blocks of level
-- p_level + 1, time-ordered runs of at most p_cap across all of them.
CREATE OR REPLACE FUNCTION trigram_blocks_merge(p_level smallint, p_trigrams text[], p_cap integer) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_level IS NULL OR p_level < 0 OR p_level > 8 THEN
    RAISE EXCEPTION 'block level % refused: 0 to 8', p_level;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(hashtext('retention_remove_detections'));
  PERFORM trigram_blocks_packing();
  WITH moved AS (
    DELETE FROM trigram_blocks b WHERE b.trigram = ANY (p_trigrams) AND b.level = p_level
    RETURNING b.trigram, b.captured_ats, b.ids, b.collector_ids, b.plates
  )
  INSERT INTO trigram_block_packing
  SELECT m.trigram, p_level + 1, 0, u.captured_at, u.id, u.collector_id, u.plate
    FROM moved m CROSS JOIN LATERAL unnest(m.captured_ats, m.ids, m.collector_ids, m.plates) AS u (captured_at, id, collector_id, plate);
  RETURN trigram_blocks_pack(p_cap);
END
$$;

-- Retention: the reads in pg_temp.forgotten_reads (id, captured_at) leave every block that
-- holds one; each such block is written again without them, or not at all when it empties.
-- Only blocks whose time span meets the removed reads' are opened.
CREATE OR REPLACE FUNCTION trigram_blocks_forget() RETURNS bigint
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
  v_lo timestamptz;
  v_hi timestamptz;
BEGIN
  SELECT min(f.captured_at), max(f.captured_at) INTO v_lo, v_hi FROM forgotten_reads f;
  IF v_lo IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM trigram_blocks_packing();
  CREATE INDEX ON forgotten_reads (id);
  WITH touched AS (
    DELETE FROM trigram_blocks b
     WHERE b.oldest_at <= v_hi AND b.newest_at >= v_lo
       AND EXISTS (SELECT 1 FROM unnest(b.ids) AS i (id) JOIN forgotten_reads f ON f.id = i.id)
    RETURNING b.trigram, b.level, b.newest_id, b.captured_ats, b.ids, b.collector_ids, b.plates
  )
  INSERT INTO trigram_block_packing
  SELECT m.trigram, m.level, m.newest_id, u.captured_at, u.id, u.collector_id, u.plate
    FROM touched m CROSS JOIN LATERAL unnest(m.captured_ats, m.ids, m.collector_ids, m.plates) AS u (captured_at, id, collector_id, plate)
   WHERE NOT EXISTS (SELECT 1 FROM forgotten_reads f WHERE f.id = u.id);
  RETURN trigram_blocks_pack(4096);
END
$$;

-- A row removed by retention takes its postings with it from both tiers (0037 took them from
-- the fresh one only).
CREATE OR REPLACE FUNCTION detections_forget_trigrams() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM detection_trigrams t USING old_rows o
   WHERE t.trigram = ANY (alpr_plate_trigrams(o.plate_normalized)) AND t.captured_at = o.captured_at AND t.id = o.id;
  IF to_regclass('pg_temp.forgotten_reads') IS NOT NULL THEN
    DROP TABLE pg_temp.forgotten_reads;
  END IF;
  CREATE TEMP TABLE forgotten_reads ON COMMIT DROP AS SELECT o.id, o.captured_at FROM old_rows o;
  PERFORM trigram_blocks_forget();
  RETURN NULL;
END
$$;

-- As in 0037, and a month's partition dropped whole takes its sealed postings with it too.
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
    DROP TABLE IF EXISTS pg_temp.forgotten_reads;
    EXECUTE format('CREATE TEMP TABLE forgotten_reads ON COMMIT DROP AS SELECT p.id, p.captured_at FROM %I p', v_part.relname);
    PERFORM trigram_blocks_forget();
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
    -- Read only, like the postings: the sealer moves them through the two functions below
    -- (as the owner), and only retention removes.
    REVOKE ALL ON trigram_blocks FROM alpr_app;
    GRANT SELECT ON trigram_blocks TO alpr_app;
    REVOKE ALL ON trigram_block_seal FROM alpr_app;
    GRANT SELECT, UPDATE ON trigram_block_seal TO alpr_app;
    GRANT EXECUTE ON FUNCTION trigram_blocks_seal(bigint, text, text, integer) TO alpr_app;
    GRANT EXECUTE ON FUNCTION trigram_blocks_merge(smallint, text[], integer) TO alpr_app;
    GRANT EXECUTE ON FUNCTION retention_remove_detections(timestamptz) TO alpr_app;
  END IF;
END
$$;
