-- 0013: camera-side facts kept with a detection (shared detection `attributes`): the
-- camera's own capture time when the appliance corrected a wrong camera clock, raw vendor
-- codes. Diagnostic, outside the hash chain (canonical fields v1 unchanged): adding a
-- column does not touch the write-once rows, which read NULL.
ALTER TABLE detections ADD COLUMN IF NOT EXISTS attributes jsonb;
