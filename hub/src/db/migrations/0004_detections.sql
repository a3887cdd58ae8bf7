-- 0004: detections (monthly range partitions, write-once), the global idempotency table,
-- per-collector hash-chain heads, and legal holds. See docs/database.md.

-- Shared guard for write-once tables: UPDATE, DELETE and TRUNCATE are always refused.
-- Retention (7 years) removes whole monthly partitions as the owner (DETACH + DROP fire no
-- row triggers); see docs/database.md for how that meets the hash chain.
CREATE OR REPLACE FUNCTION write_once_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is write-once: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation';
END
$$;

CREATE SEQUENCE IF NOT EXISTS detections_id_seq AS bigint;

CREATE TABLE IF NOT EXISTS detections (
  id               bigint NOT NULL DEFAULT nextval('detections_id_seq'),
  collector_id     uuid NOT NULL REFERENCES collectors (id),
  -- The appliance's camera identifier as sent (a cameras.id uuid when the camera was
  -- created centrally, otherwise the collector's own id): text so ingest never rejects one.
  camera_id        text NOT NULL,
  -- The appliance's stable detection id (camera id or generated UUID): the idempotency key.
  detection_id     text NOT NULL,
  plate_number     varchar(20) NOT NULL,
  plate_normalized varchar(20) NOT NULL,
  confidence       double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  -- Millisecond precision: the hash chain serializes captured_at as ISO-8601 with ms, so
  -- the stored value must round-trip exactly through a JavaScript Date.
  captured_at      timestamptz(3) NOT NULL,
  direction        text NOT NULL DEFAULT 'unknown' CHECK (direction IN ('entering', 'exiting', 'unknown')),
  vehicle_type     text CHECK (vehicle_type IN ('car', 'truck', 'motorcycle', 'bus', 'van')),
  color            text,
  brand            text,
  model            text,
  region           text,
  latitude         numeric(10, 8),
  longitude        numeric(11, 8),
  full_image_hash  char(64) CHECK (full_image_hash ~ '^[0-9a-f]{64}$'),
  crop_image_hash  char(64) CHECK (crop_image_hash ~ '^[0-9a-f]{64}$'),
  full_image_size  integer,
  crop_image_size  integer,
  chain_seq        bigint NOT NULL CHECK (chain_seq >= 1),
  prev_hash        char(64) NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  record_hash      char(64) NOT NULL CHECK (record_hash ~ '^[0-9a-f]{64}$'),
  received_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, captured_at),
  -- Unique within a partition only (a unique index on a partitioned table must contain the
  -- partition key). Global idempotency is detection_keys' job.
  UNIQUE (collector_id, detection_id, captured_at)
) PARTITION BY RANGE (captured_at);
ALTER SEQUENCE detections_id_seq OWNED BY detections.id;

-- Catches any capture time without a monthly partition (a camera clock in 2034), so ingest
-- never fails on an odd timestamp.
CREATE TABLE IF NOT EXISTS detections_default PARTITION OF detections DEFAULT;

CREATE INDEX IF NOT EXISTS detections_plate_trgm_idx ON detections USING gin (plate_normalized gin_trgm_ops);
CREATE INDEX IF NOT EXISTS detections_plate_captured_idx ON detections (plate_normalized, captured_at);
CREATE INDEX IF NOT EXISTS detections_collector_captured_idx ON detections (collector_id, captured_at);
-- The chain verifier walks one collector by chain_seq.
CREATE INDEX IF NOT EXISTS detections_collector_chain_idx ON detections (collector_id, chain_seq);

-- Row triggers on a partitioned table are cloned onto every partition, present and future
-- (PostgreSQL 13+). Statement-level TRUNCATE triggers are not: ensure_detection_partitions
-- adds one to each partition it creates.
CREATE OR REPLACE TRIGGER detections_write_once
  BEFORE UPDATE OR DELETE ON detections
  FOR EACH ROW EXECUTE FUNCTION write_once_guard();
CREATE OR REPLACE TRIGGER detections_no_truncate
  BEFORE TRUNCATE ON detections
  FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard();
CREATE OR REPLACE TRIGGER detections_no_truncate
  BEFORE TRUNCATE ON detections_default
  FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard();

-- Creates the monthly partitions (UTC months) covering p_months months from p_from's month.
-- Returns how many it created. A month whose rows already sit in the default partition is
-- skipped with a notice: attaching it would have to move write-once rows out of the default.
-- SECURITY DEFINER so the hub, running as alpr_app, can call it daily without DDL rights.
CREATE OR REPLACE FUNCTION ensure_detection_partitions(p_from timestamptz, p_months integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_month0  timestamp := date_trunc('month', p_from AT TIME ZONE 'UTC');
  v_lo      timestamptz;
  v_hi      timestamptz;
  v_name    text;
  v_created integer := 0;
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
    IF EXISTS (SELECT 1 FROM detections_default WHERE captured_at >= v_lo AND captured_at < v_hi) THEN
      RAISE NOTICE 'partition % skipped: its month already has rows in detections_default', v_name;
      CONTINUE;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF detections FOR VALUES FROM (%L) TO (%L)', v_name, v_lo, v_hi);
    EXECUTE format('CREATE OR REPLACE TRIGGER detections_no_truncate BEFORE TRUNCATE ON %I '
                   'FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard()', v_name);
    v_created := v_created + 1;
  END LOOP;
  RETURN v_created;
END
$$;

-- Last 2 months .. next 3 months; the hub repeats this daily (ensureUpcomingPartitions).
SELECT ensure_detection_partitions(now() - interval '2 months', 6);

-- Global idempotency: (collector_id, detection_id) unique across all partitions, which the
-- partitioned table itself cannot enforce (a re-upload with a different captured_at would
-- land in another partition). Ingest inserts here first with ON CONFLICT DO NOTHING; only
-- the rows it gets back are inserted into detections. Also the id -> captured_at index
-- that lets GET /detections/{id} prune to one partition, and the target of foreign keys
-- from alerts, legal holds and the alert queue. Not write-once: retention deletes here
-- before dropping a month.
CREATE TABLE IF NOT EXISTS detection_keys (
  collector_id uuid NOT NULL,
  detection_id text NOT NULL,
  detection_pk bigint NOT NULL UNIQUE,
  captured_at  timestamptz(3) NOT NULL,
  PRIMARY KEY (collector_id, detection_id),
  -- Deferred: ingest claims the key before inserting the detection in the same transaction.
  FOREIGN KEY (detection_pk, captured_at) REFERENCES detections (id, captured_at)
    ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- Hash chain head per collector. Appending locks this row (SELECT ... FOR UPDATE), so
-- concurrent batches from one collector serialize and the chain stays linear.
CREATE TABLE IF NOT EXISTS collector_chain_heads (
  collector_id uuid PRIMARY KEY REFERENCES collectors (id),
  last_seq     bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
  last_hash    char(64) NOT NULL DEFAULT repeat('0', 64) CHECK (last_hash ~ '^[0-9a-f]{64}$'),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Preservation lives here, never on the detection. The FK (no cascade) makes a held
-- detection impossible to delete, even by retention.
CREATE TABLE IF NOT EXISTS legal_holds (
  id           bigserial PRIMARY KEY,
  detection_id bigint NOT NULL REFERENCES detection_keys (detection_pk),
  case_id      varchar(100) NOT NULL,
  reason       text NOT NULL,
  hold_until   timestamptz,
  released_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  created_by   uuid,
  released_by  uuid
);
CREATE INDEX IF NOT EXISTS legal_holds_detection_idx ON legal_holds (detection_id);
