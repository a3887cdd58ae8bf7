-- 0031: watchlists that follow a feed, entries with an expiry and a priority, and
-- historical hits found by a retro-hunt (docs/watchlists.md "Feeds", "Retro-hunt").
--
-- An entry may expire (a stolen car found, a temporary ban ended): from `expires_at` on it
-- matches nothing, and the next feed update removes it if the feed no longer lists it.
-- `priority` is the entry's own (a feed ranks its plates); null means the list's.
ALTER TABLE watchlist_entries ADD COLUMN IF NOT EXISTS expires_at timestamptz;
ALTER TABLE watchlist_entries ADD COLUMN IF NOT EXISTS priority text
  CONSTRAINT watchlist_entries_priority_check CHECK (priority IS NULL OR priority IN ('low', 'medium', 'high', 'critical'));

-- An alert raised for a read stored before its entry was added: the retro-hunt searched past
-- detections when the plate arrived. The unique (detection, watchlist) pair of 0011 keeps it
-- once per read and list however often the hunt runs again.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS historical boolean NOT NULL DEFAULT false;

-- One feed per watchlist at most: where it lives, how often it is read, and what the last
-- read found. `etag` and `last_modified` are the server's validators, sent back on the next
-- read so an unchanged feed costs one 304. Status: `ok` (applied), `not_modified` (304),
-- `error` (nothing changed; `last_error` says why).
CREATE TABLE IF NOT EXISTS watchlist_feeds (
  watchlist_id     uuid PRIMARY KEY REFERENCES watchlists (id) ON DELETE CASCADE,
  url              text NOT NULL,
  format           text NOT NULL CONSTRAINT watchlist_feeds_format_check CHECK (format IN ('csv', 'json')),
  schedule         text NOT NULL,
  retro_hunt_days  integer NOT NULL DEFAULT 7 CONSTRAINT watchlist_feeds_retro_days_check CHECK (retro_hunt_days BETWEEN 0 AND 30),
  etag             text,
  last_modified    text,
  last_checked_at  timestamptz,
  last_success_at  timestamptz,
  last_status      text CONSTRAINT watchlist_feeds_status_check CHECK (last_status IS NULL OR last_status IN ('ok', 'not_modified', 'error')),
  last_error       text,
  last_changes     jsonb,
  created_by       uuid REFERENCES users (id),
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON watchlist_feeds TO alpr_app;
    GRANT SELECT, INSERT, UPDATE, DELETE ON watchlist_entries TO alpr_app;
    GRANT SELECT, INSERT, UPDATE ON alerts TO alpr_app;
  END IF;
END
$$;
