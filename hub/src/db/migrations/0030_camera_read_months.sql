-- 0030: reads per camera and month, kept for years (docs/transparency.md "Reads"). The hourly
-- counts (0024) live 5 weeks, as long as the health evaluator needs them; when it drops old
-- hours it folds them into this table in the same statement (health/evaluate.ts
-- pruneHealthCounts), so the public account's monthly reads stay exact after tiered
-- retention deleted the reads that matched nothing and the hours are gone. A row a camera and
-- month: about 12 rows a camera a year.
CREATE TABLE IF NOT EXISTS camera_read_months (
  collector_id uuid NOT NULL REFERENCES collectors (id) ON DELETE CASCADE,
  camera_id    text NOT NULL,
  -- The first day of the UTC month the hub received the reads in (as the hours are keyed).
  month        date NOT NULL,
  reads        bigint NOT NULL CHECK (reads >= 1),
  PRIMARY KEY (collector_id, camera_id, month)
);
CREATE INDEX IF NOT EXISTS camera_read_months_month_idx ON camera_read_months (month);
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON camera_read_months TO alpr_app;
  END IF;
END
$$;
