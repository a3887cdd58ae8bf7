-- 0027: a purpose for every look (docs/security.md "Purposes").
--
-- A search, an investigation, a detection view and an evidence export each name one of
-- these purposes, and a case number where the purpose requires one; the free-text reason
-- stays as a note beside it. Audits of plate readers have found reasons like "inv" or
-- nothing at all: a closed list an admin keeps is what makes lookups countable by purpose.
--
-- Rows are retired, never deleted: audit rows written years ago name their purpose by code,
-- and the code must still resolve to the label it had. The code itself never changes.
CREATE TABLE IF NOT EXISTS purposes (
  code                 text PRIMARY KEY CHECK (code ~ '^[a-z][a-z0-9_]{1,39}$'),
  label                text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 100),
  description          text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  case_number_required boolean NOT NULL DEFAULT false,
  created_at           timestamptz NOT NULL DEFAULT now(),
  created_by           uuid REFERENCES users (id),
  retired_at           timestamptz,
  retired_by           uuid REFERENCES users (id)
);

CREATE OR REPLACE FUNCTION purposes_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'purposes are retired, never deleted (audit rows name them)';
END
$$;
CREATE OR REPLACE TRIGGER purposes_no_delete BEFORE DELETE ON purposes
  FOR EACH ROW EXECUTE FUNCTION purposes_never_deleted();

-- The defaults a new hub starts with (docs/security.md lists them). ON CONFLICT: an admin
-- who retired one keeps it retired across restarts.
INSERT INTO purposes (code, label, description, case_number_required) VALUES
  ('stolen_vehicle', 'Stolen vehicle', 'Locating a vehicle reported stolen.', false),
  ('stolen_plate', 'Stolen plate', 'Locating a plate reported stolen or used on another vehicle.', false),
  ('missing_person', 'Missing or endangered person', 'A person reported missing, or an AMBER or Silver alert.', false),
  ('wanted_person', 'Wanted person (warrant)', 'A person with an outstanding warrant: the case number is the warrant or case reference.', true),
  ('criminal_investigation', 'Criminal investigation', 'An open criminal case: the case number is required.', true),
  ('alert_verification', 'Checking an alert', 'Comparing a watchlist hit with the list entry before anyone acts on it.', false)
ON CONFLICT (code) DO NOTHING;

-- The audit list's purpose filter and the review page count lookups by purpose: the
-- purpose sits in `detail` (audit_log is write-once, so no column is added to old rows).
CREATE INDEX IF NOT EXISTS audit_log_purpose_idx ON audit_log ((detail ->> 'purpose'), at);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- No DELETE: retired, never deleted (the trigger says so too, for the owner). Revoked
    -- explicitly: re-running 0008 grants DELETE on every table, and this file runs after it.
    GRANT SELECT, INSERT, UPDATE ON purposes TO alpr_app;
    REVOKE DELETE, TRUNCATE ON purposes FROM alpr_app;
  END IF;
END
$$;
