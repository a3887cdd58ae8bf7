-- 0003: collectors, their cameras, keys, provisioning tokens, commands; the hub's signing keys.
CREATE TABLE IF NOT EXISTS collectors (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  site_name             varchar(100) NOT NULL,
  site_address          varchar(255),
  gps_latitude          numeric(10, 8),
  gps_longitude         numeric(11, 8),
  claim_code            varchar(20) UNIQUE,
  claim_code_expires_at timestamptz,
  claimed_at            timestamptz,
  claimed_from_ip       inet,
  api_key_hash          varchar(255),
  api_key_prefix        varchar(8),
  hardware_id           varchar(100),
  os_version            varchar(50),
  edge_version          varchar(20),
  status                text NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'active', 'disabled', 'decommissioned')),
  -- Admin-set marker: a new claim code binds new hardware to this same collector id.
  pending_replacement   boolean NOT NULL DEFAULT false,
  -- X25519 public key sent at claim; camera credentials entered centrally are sealed to it.
  public_key            bytea,
  config                jsonb NOT NULL DEFAULT '{}'::jsonb,
  config_version        integer NOT NULL DEFAULT 1,
  last_heartbeat_at     timestamptz,
  last_heartbeat        jsonb,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  created_by            uuid REFERENCES users (id)
);
-- "hardware not already registered": one collector per device serial.
CREATE UNIQUE INDEX IF NOT EXISTS collectors_hardware_id_key ON collectors (hardware_id) WHERE hardware_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS cameras (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  collector_id       uuid NOT NULL REFERENCES collectors (id),
  vendor             text NOT NULL CHECK (vendor IN ('vendor_a', 'vendor_b')),
  host               text NOT NULL,
  port               integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  name               text NOT NULL,
  mac                text CHECK (mac ~ '^[0-9a-f]{12}$'),
  username           text,
  -- nacl box sealed to collectors.public_key; the hub never needs the password in clear again.
  sealed_credentials bytea,
  timezone           text NOT NULL DEFAULT 'UTC',
  mode               text NOT NULL DEFAULT 'pull' CHECK (mode IN ('pull', 'push')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS cameras_collector_idx ON cameras (collector_id);
CREATE UNIQUE INDEX IF NOT EXISTS cameras_collector_mac_key ON cameras (collector_id, mac) WHERE mac IS NOT NULL;

CREATE TABLE IF NOT EXISTS api_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  collector_id  uuid NOT NULL REFERENCES collectors (id),
  key_hash      char(64) NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  key_prefix    varchar(10) NOT NULL,
  name          varchar(100),
  is_active     boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  created_by    uuid NOT NULL,
  expires_at    timestamptz,
  last_used_at  timestamptz,
  last_used_ip  varchar(45),
  revoked_at    timestamptz,
  revoked_by    uuid,
  revoke_reason text
);
CREATE INDEX IF NOT EXISTS api_keys_collector_idx ON api_keys (collector_id);

CREATE TABLE IF NOT EXISTS provisioning_tokens (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  collector_id uuid NOT NULL REFERENCES collectors (id),
  token_hash   char(64) NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  created_by   uuid NOT NULL
);

-- Command type is open text on purpose (config_update and wipe are known; new types must not
-- need a migration). signature: Ed25519 over the command, by a hub_keys key.
CREATE TABLE IF NOT EXISTS commands (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  collector_id    uuid NOT NULL REFERENCES collectors (id),
  type            text NOT NULL,
  payload         jsonb NOT NULL DEFAULT '{}'::jsonb,
  signature       text,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'acknowledged')),
  ack_status      text CHECK (ack_status IN ('success', 'failed', 'rolled_back')),
  ack_detail      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  delivered_at    timestamptz,
  acknowledged_at timestamptz,
  created_by      uuid
);
-- The heartbeat handler fetches a collector's unacknowledged commands in creation order.
CREATE INDEX IF NOT EXISTS commands_collector_status_idx ON commands (collector_id, status, created_at);

-- Ed25519 key pairs the hub signs commands and evidence manifests with. retired_at set on
-- rotation; a retired key still verifies old signatures.
CREATE TABLE IF NOT EXISTS hub_keys (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  public_key bytea NOT NULL UNIQUE CHECK (octet_length(public_key) = 32),
  secret_key bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);
