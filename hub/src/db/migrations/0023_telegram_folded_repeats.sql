-- 0023: the per-plate cooldown folds only repeats at the same site (docs/messaging.md "Who
-- gets a message"). A watched car seen at another collector inside the 10 minutes is the
-- pursuit case and is always sent; so is a sighting on a higher-priority watchlist.
--
-- The window remembers where its message came from and how urgent it was. Rows written
-- before this migration have neither (NULL): the next sighting of that plate is sent and
-- opens a window that has them.
ALTER TABLE telegram_plate_cooldowns ADD COLUMN IF NOT EXISTS collector_id uuid;
ALTER TABLE telegram_plate_cooldowns ADD COLUMN IF NOT EXISTS priority text;

-- Every repeat folded into a message is counted on the queue items of the sighting that
-- went out (one per alert and chat), with the capture time of the latest one, so the
-- dashboard can say "seen 3 more times at Site A, last 10:42" rather than nothing.
ALTER TABLE notification_queue ADD COLUMN IF NOT EXISTS folded_repeats integer NOT NULL DEFAULT 0;
ALTER TABLE notification_queue ADD COLUMN IF NOT EXISTS last_folded_at timestamptz;

-- Per alert, for the alert list and payload: the most repeats any of its chats was spared
-- (chats normally agree; one muted during a repeat got that repeat as `muted` instead).
CREATE OR REPLACE VIEW alert_folded_repeats AS
  SELECT alert_id, max(folded_repeats) AS folded_repeats, max(last_folded_at) AS last_folded_at
  FROM notification_queue
  WHERE channel = 'telegram' AND folded_repeats > 0
  GROUP BY alert_id;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    -- Read only; REVOKE first because 0008 grants more on every relation when the
    -- migrations run again (the same pattern as 0015).
    REVOKE ALL ON alert_folded_repeats FROM alpr_app;
    GRANT SELECT ON alert_folded_repeats TO alpr_app;
  END IF;
END
$$;
