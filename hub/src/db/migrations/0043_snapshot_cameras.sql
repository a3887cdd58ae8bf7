-- 0043: ordinary cameras (`vendor = 'snapshot'`, docs/ordinary-cameras.md) managed on the hub
-- (docs/cameras-central.md). The appliance takes their frames and reads the plates itself.
--
-- `snapshot_settings`: what only this kind has, in the appliance's own field names so the push
-- sends it as it is: {"snapshotUrl"|"rtspUrl", "framesPerSecond", "region", "changeThreshold",
-- "passageGapMs"}, each optional; NULL for the other kinds. Its shape and bounds are checked by
-- the API (collectors/cameras/snapshot-input.ts, the same bounds as the appliance's TOML), not
-- here: one rule in one place. A login typed into a URL is moved to the escrow there, so no URL
-- stored here carries a password.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_constraint WHERE conname = 'cameras_vendor_check' AND pg_get_constraintdef(oid) LIKE '%snapshot%'
  ) THEN
    ALTER TABLE cameras DROP CONSTRAINT IF EXISTS cameras_vendor_check;
    ALTER TABLE cameras ADD CONSTRAINT cameras_vendor_check CHECK (vendor IN ('vendor_a', 'vendor_b', 'snapshot'));
  END IF;
END
$$;
ALTER TABLE cameras ADD COLUMN IF NOT EXISTS snapshot_settings jsonb;
