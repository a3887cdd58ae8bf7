-- 0026: verifying an alert before anyone acts on it (docs/alerts.md "Verification").
--
-- An operator compares the read's crop with the list entry and marks the alert `confirmed`
-- (the crop shows the listed plate) or `misread`, with a note. Once: a second verdict is
-- refused, so the audit log holds one verdict per alert. `unverified` until then. This is
-- beside `state` (new/acknowledged/dismissed): someone may be on an alert before it is
-- verified, and a verified alert may still wait to be handled.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS verification text NOT NULL DEFAULT 'unverified'
  CONSTRAINT alerts_verification_check CHECK (verification IN ('unverified', 'confirmed', 'misread'));
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS verified_by uuid REFERENCES users (id);
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS verified_at timestamptz;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS verification_note text;

-- The reports page's misread rates count verified alerts of the last 30 days per camera and
-- per list: a partial index keeps that to the few verified rows, not every alert.
CREATE INDEX IF NOT EXISTS alerts_verified_idx ON alerts (verified_at) WHERE verification <> 'unverified';

-- Per watchlist: is an alert actionable only once confirmed? On by default, for existing
-- lists too: a 7 read as a 3 has led to a stop at gunpoint, and the safe side is to say
-- "unverified" until a person has compared the crop with the entry. A list owner who acts
-- on raw matches (a car park's allow list) turns it off.
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS verification_required boolean NOT NULL DEFAULT true;

-- The camera's other candidate readings of the plate, where the vendor sends them
-- (docs/protocol.md "plate.candidates"): shown beside an alert so the operator sees what
-- else the camera thought it read. Written once with the row like every detection column;
-- outside the hash chain, like `attributes` (0013).
ALTER TABLE detections ADD COLUMN IF NOT EXISTS plate_candidates jsonb;

-- The new columns fall under the table grants (0008): alpr_app reads and updates alerts and
-- watchlists and only inserts detections, as before. Granted again here so the verdict's
-- UPDATE works even where those grants were set by hand.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, UPDATE ON alerts, watchlists TO alpr_app;
  END IF;
END
$$;
