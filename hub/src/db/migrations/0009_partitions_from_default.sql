-- 0009: partition creation is never blocked by rows in the default partition (issue 10).
-- Before, a month whose rows already sat in detections_default (a camera clock a month
-- ahead) was skipped for good, and every later row of that month went to the default too.
-- Now the month's rows are moved out of the default into the new partition, verbatim (same
-- id, same hash-chain columns), in the same transaction that creates it. Ingest also
-- refuses capture times far ahead of the hub's clock (docs/ingest.md), so this is rare.
--
-- Moving a row is a DELETE from the default plus an INSERT into the parent. Both would be
-- refused or cascade: the write-once trigger refuses the DELETE, and detection_keys' foreign
-- key would cascade it to the idempotency key (and legal holds would block it). Replica
-- mode (session_replication_role = replica) switches ordinary and foreign-key triggers off
-- while one month's rows move, and the caller's value is restored right after (an error
-- aborts the transaction, or its savepoint, which undoes the setting too). Not a SET clause
-- on the function: that would need the privilege on every call. Setting it needs a superuser owner, or on PostgreSQL 15+
-- `GRANT SET ON PARAMETER session_replication_role TO <owner>`; without it the month is
-- skipped with a WARNING as before (docs/database.md).
CREATE OR REPLACE FUNCTION ensure_detection_partitions(p_from timestamptz, p_months integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  v_month0  timestamp := date_trunc('month', p_from AT TIME ZONE 'UTC');
  v_lo      timestamptz;
  v_hi      timestamptz;
  v_name    text;
  v_created integer := 0;
  v_moved   bigint;
  v_role    text := current_setting('session_replication_role');
BEGIN
  IF p_months IS NULL OR p_months < 1 OR p_months > 240 THEN
    RAISE EXCEPTION 'p_months must be between 1 and 240, got %', p_months;
  END IF;
  -- Two hub processes running the daily job together would both see a partition missing.
  PERFORM pg_advisory_xact_lock(hashtext('ensure_detection_partitions'));
  FOR i IN 0 .. p_months - 1 LOOP
    v_lo := (v_month0 + make_interval(months => i)) AT TIME ZONE 'UTC';
    v_hi := (v_month0 + make_interval(months => i + 1)) AT TIME ZONE 'UTC';
    v_name := 'detections_' || to_char(v_month0 + make_interval(months => i), '"y"YYYY"m"MM');
    CONTINUE WHEN to_regclass(v_name) IS NOT NULL;
    v_moved := 0;
    IF EXISTS (SELECT 1 FROM detections_default WHERE captured_at >= v_lo AND captured_at < v_hi) THEN
      BEGIN
        SET LOCAL session_replication_role = replica;
      EXCEPTION WHEN insufficient_privilege THEN
        RAISE WARNING 'partition % skipped: its month has rows in detections_default and moving them needs SET on session_replication_role', v_name;
        CONTINUE;
      END;
      -- Blocks ingest into the default while the rows move (the month's new rows wait).
      LOCK TABLE detections_default IN EXCLUSIVE MODE;
      CREATE TEMP TABLE IF NOT EXISTS pg_temp.detections_moving (LIKE detections) ON COMMIT DROP;
      TRUNCATE pg_temp.detections_moving;
      WITH moved AS (
        DELETE FROM detections_default WHERE captured_at >= v_lo AND captured_at < v_hi RETURNING *
      )
      INSERT INTO pg_temp.detections_moving SELECT * FROM moved;
      GET DIAGNOSTICS v_moved = ROW_COUNT;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF detections FOR VALUES FROM (%L) TO (%L)', v_name, v_lo, v_hi);
    EXECUTE format('CREATE OR REPLACE TRIGGER detections_no_truncate BEFORE TRUNCATE ON %I '
                   'FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard()', v_name);
    IF v_moved > 0 THEN
      INSERT INTO detections SELECT * FROM pg_temp.detections_moving;
      TRUNCATE pg_temp.detections_moving;
      PERFORM set_config('session_replication_role', v_role, true);
      RAISE NOTICE 'partition %: % rows moved in from detections_default', v_name, v_moved;
    END IF;
    v_created := v_created + 1;
  END LOOP;
  RETURN v_created;
END
$$;

-- The function is replaced in place (same signature): 0008's EXECUTE grant to alpr_app stays.
-- Months skipped before this migration get their partition now.
SELECT ensure_detection_partitions(now() - interval '2 months', 6);
