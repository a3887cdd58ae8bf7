-- 0010: server-side session revocation and one-time passwords (issue 10 section 5).
-- sessions_valid_after: every session issued before it is refused (admin "end all
-- sessions", password change, deactivation, 2FA reset). must_change_password: the password
-- was set by an admin and shown once; every protected route answers 403 until it is changed.
ALTER TABLE users ADD COLUMN IF NOT EXISTS sessions_valid_after timestamptz;
ALTER TABLE users ADD COLUMN IF NOT EXISTS must_change_password boolean NOT NULL DEFAULT false;

-- One row per session ended by logout, kept until the session would have expired anyway.
CREATE TABLE IF NOT EXISTS revoked_sessions (
  session_id text PRIMARY KEY CHECK (length(session_id) BETWEEN 16 AND 64),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  revoked_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS revoked_sessions_expires_idx ON revoked_sessions (expires_at);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- The same rights 0008 gives every table, so re-running 0008 changes nothing.
    GRANT SELECT, INSERT, UPDATE, DELETE ON revoked_sessions TO alpr_app;
  END IF;
END
$$;

-- A decommissioned collector keeps its hardware id as history, but no longer holds the
-- device: the same box can be claimed by a new collector (issue 10 section 5).
-- Same index name as 0003, so re-running 0003 (IF NOT EXISTS) leaves this definition alone.
DROP INDEX IF EXISTS collectors_hardware_id_key;
CREATE UNIQUE INDEX collectors_hardware_id_key ON collectors (hardware_id)
  WHERE hardware_id IS NOT NULL AND status <> 'decommissioned';
