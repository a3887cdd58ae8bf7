-- 0011: what the watchlist API and the alert worker need beyond 0005 (docs/watchlists.md).
-- Per-watchlist OCR tolerance (off by default) and soft delete: alerts keep pointing at a
-- deleted watchlist, which disappears from lists and stops matching.
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS ocr_tolerant boolean NOT NULL DEFAULT false;
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS deleted_at timestamptz;

-- What matched, as it was when the alert was raised: the entry may be edited or removed
-- later, the alert must still say why it fired.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS match_kind text NOT NULL DEFAULT 'exact';
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS entry_snapshot jsonb NOT NULL DEFAULT '{}'::jsonb;
-- Operator handling: new -> acknowledged or dismissed (once; audited).
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS state text NOT NULL DEFAULT 'new';
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS handled_by uuid REFERENCES users (id);
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS handled_at timestamptz;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'alerts_match_kind_check') THEN
    ALTER TABLE alerts ADD CONSTRAINT alerts_match_kind_check CHECK (match_kind IN ('exact', 'ocr'));
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'alerts_state_check') THEN
    ALTER TABLE alerts ADD CONSTRAINT alerts_state_check CHECK (state IN ('new', 'acknowledged', 'dismissed'));
  END IF;
END
$$;
-- GET /api/v1/alerts: one user's subscribed watchlists, newest after a point.
CREATE INDEX IF NOT EXISTS alerts_watchlist_id_idx ON alerts (watchlist_id, id);
-- The reaper looks only at claimed items.
CREATE INDEX IF NOT EXISTS alert_queue_processing_idx ON alert_queue (locked_at) WHERE status = 'processing';
