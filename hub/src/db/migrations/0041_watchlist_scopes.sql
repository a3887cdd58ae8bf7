-- 0041: alert scopes on each watchlist (docs/watchlists.md "Scopes").
--
-- `kind`: an ordinary list (`watchlist`) or an ignore list (`ignore`): plates that never alert
-- on the lists the ignore list is attached to. `mode`: `listed` alerts on a listed plate (as
-- before), `allow_list` on any plate NOT on the list within the scope (a residents-only car
-- park). `scope`: where, which way and when the list alerts; NULL = everywhere, always, both
-- ways (every list before this migration). Its shape is checked by the API (zod, Intl for the
-- time zone), not here: PGlite has no time-zone list, and one rule in one place is enough.
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'watchlist';
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS mode text NOT NULL DEFAULT 'listed';
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS scope jsonb;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'watchlists_kind_check') THEN
    ALTER TABLE watchlists ADD CONSTRAINT watchlists_kind_check CHECK (kind IN ('watchlist', 'ignore'));
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'watchlists_mode_check') THEN
    ALTER TABLE watchlists ADD CONSTRAINT watchlists_mode_check CHECK (mode IN ('listed', 'allow_list'));
  END IF;
END
$$;

-- Which ignore lists a list honours (many to many). Deleting either side (a hard delete; the API
-- deletes softly) drops the link.
CREATE TABLE IF NOT EXISTS watchlist_ignore_links (
  watchlist_id   uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  ignore_list_id uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  PRIMARY KEY (watchlist_id, ignore_list_id),
  CHECK (watchlist_id <> ignore_list_id)
);
CREATE INDEX IF NOT EXISTS watchlist_ignore_links_ignore_idx ON watchlist_ignore_links (ignore_list_id);

-- An allow-list alert has no entry: the plate is not listed. It says so as match_kind 'not_listed'.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_constraint WHERE conname = 'alerts_match_kind_check' AND pg_get_constraintdef(oid) LIKE '%not_listed%'
  ) THEN
    ALTER TABLE alerts DROP CONSTRAINT IF EXISTS alerts_match_kind_check;
    ALTER TABLE alerts ADD CONSTRAINT alerts_match_kind_check CHECK (match_kind IN ('exact', 'ocr', 'one_edit', 'not_listed'));
  END IF;
END
$$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON watchlist_ignore_links TO alpr_app;
  END IF;
END
$$;
