-- 0017: collector health over time (docs/dashboard.md "Reports"): one row per collector and
-- hour, folded from its heartbeats as they arrive (how many came, the deepest upload queue,
-- the fewest cameras online), so a week of health is 168 rows a collector, not 10,080
-- heartbeats. The last heartbeat itself stays on collectors.last_heartbeat.
CREATE TABLE IF NOT EXISTS collector_health_hours (
  collector_id       uuid NOT NULL REFERENCES collectors (id),
  hour               timestamptz NOT NULL,
  heartbeats         integer NOT NULL CHECK (heartbeats >= 1),
  max_queue_depth    integer NOT NULL,
  min_cameras_online integer NOT NULL,
  cameras_total      integer,
  PRIMARY KEY (collector_id, hour)
);
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON collector_health_hours TO alpr_app;
  END IF;
END
$$;
