-- 0008: privileges of the application role. Idempotent like every migration, so re-running
-- it restores exactly these grants. A later migration that adds a table must grant it too.
REVOKE UPDATE, DELETE, TRUNCATE ON detections, detections_default, audit_log FROM PUBLIC;

DO $$
DECLARE
  v_part text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    RAISE NOTICE 'role alpr_app missing: grants skipped';
    RETURN;
  END IF;
  GRANT USAGE ON SCHEMA public TO alpr_app;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO alpr_app;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO alpr_app;
  GRANT EXECUTE ON FUNCTION ensure_detection_partitions(timestamptz, integer) TO alpr_app;
  -- Write-once tables: insert and read only. detection_keys: retention deletes there as the
  -- owner, never the hub. Partitions are reached through the parent only: the hub gets no
  -- rights on them directly (this also covers partitions created later).
  REVOKE UPDATE, DELETE, TRUNCATE ON detections, audit_log, detection_keys FROM alpr_app;
  REVOKE ALL ON schema_migrations FROM alpr_app;
  GRANT SELECT ON schema_migrations TO alpr_app;
  FOR v_part IN SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'detections'::regclass LOOP
    EXECUTE format('REVOKE ALL ON %s FROM alpr_app', v_part);
  END LOOP;
END
$$;
