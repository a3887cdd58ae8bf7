-- 0033: how far back a plate added by hand is searched (docs/watchlists.md "Retro-hunt").
--
-- A plate added one at a time or by CSV import is searched for in the reads of the last
-- `retro_hunt_days` days, like the plates a feed adds, and each match raises a historical
-- hit. 7 days by default (a stolen car is usually reported within a week of the theft);
-- 0 turns the search off; 30 at most (a month of reads is what a busy hub searches in
-- seconds). A feed keeps its own setting (watchlist_feeds.retro_hunt_days, 0031) for the
-- plates it adds: a list may want last week's reads searched for a plate an operator adds,
-- and none for the thousands a national feed adds at once.
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS retro_hunt_days integer NOT NULL DEFAULT 7
  CONSTRAINT watchlists_retro_hunt_days_check CHECK (retro_hunt_days BETWEEN 0 AND 30);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE ON watchlists TO alpr_app;
    GRANT SELECT, INSERT, UPDATE ON alerts TO alpr_app;
  END IF;
END
$$;
