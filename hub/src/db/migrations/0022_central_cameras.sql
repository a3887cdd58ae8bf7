-- 0022: cameras entered on the hub (docs/cameras-central.md), a collector suspended by an
-- admin, and a dead box replaced under the same collector id.
--
-- Credentials of a central camera are kept only sealed to the hub's credential escrow key
-- (a file outside the database, cameras/credential-escrow.ts), so a replaced box's successor
-- can be sent them again, sealed to its own key, without anyone typing them twice. The hub
-- never stores them in clear. The old per-device sealed column held a copy only one box
-- could open: nothing wrote it, and a copy per box is rebuilt at every push instead.
ALTER TABLE cameras DROP COLUMN IF EXISTS sealed_credentials;
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS escrowed_credentials bytea;
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS channel integer NOT NULL DEFAULT 1 CHECK (channel BETWEEN 1 AND 999);
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS tls boolean;
-- vendor_b: the console's camera ids to take (NULL: all of them).
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS source_camera_ids jsonb;
-- What this mounting's forward/reverse mean: {"forward": "entering", "reverse": "leaving"}.
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS direction jsonb;
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS gps_latitude numeric(10, 8);
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS gps_longitude numeric(11, 8);
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS enabled boolean NOT NULL DEFAULT true;
-- Removed cameras stay as rows: their detections keep a name (cameras are kept permanently).
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS removed_at timestamptz;
-- The appliance's last answer for this camera after a configuration push.
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS last_outcome text
  CHECK (last_outcome IN ('connected', 'authentication_failed', 'unreachable', 'clock_warning', 'not_connected'));
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS last_outcome_detail text;
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS last_outcome_at timestamptz;
-- One name per collector among cameras not removed: the form refuses a second "Gate".
CREATE UNIQUE INDEX IF NOT EXISTS cameras_collector_name_key ON cameras (collector_id, lower(name)) WHERE removed_at IS NULL;

-- Per-camera answers of a config_update: [{ "id", "outcome", "detail" }].
ALTER TABLE commands ADD COLUMN IF NOT EXISTS ack_cameras jsonb;

-- Suspension (status 'disabled') and replacement.
ALTER TABLE collectors ADD COLUMN IF NOT EXISTS suspended_at timestamptz;
ALTER TABLE collectors ADD COLUMN IF NOT EXISTS suspend_reason varchar(500);
ALTER TABLE collectors ADD COLUMN IF NOT EXISTS replacement_requested_at timestamptz;
