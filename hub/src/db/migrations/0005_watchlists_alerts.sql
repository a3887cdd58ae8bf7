-- 0005: watchlists, entries, subscriptions, alerts and the alert queue.
CREATE TABLE IF NOT EXISTS watchlists (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  created_by  uuid NOT NULL REFERENCES users (id),
  name        varchar(100) NOT NULL,
  description text,
  -- The spec leaves the values open; four levels, ordered, carried in the live alert payload.
  priority    text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'critical')),
  is_active   boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS watchlist_entries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  watchlist_id     uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  plate_number     varchar(20) NOT NULL,
  -- OCR-normalized form: what the matcher compares with detections.plate_normalized.
  plate_normalized varchar(20) NOT NULL,
  notes            text,
  added_by         uuid REFERENCES users (id),
  added_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (watchlist_id, plate_normalized)
);
CREATE INDEX IF NOT EXISTS watchlist_entries_plate_idx ON watchlist_entries (plate_normalized);

CREATE TABLE IF NOT EXISTS subscriptions (
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  watchlist_id uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, watchlist_id)
);
CREATE INDEX IF NOT EXISTS subscriptions_watchlist_idx ON subscriptions (watchlist_id);

-- detection_id references detection_keys.detection_pk: the partitioned detections table can
-- only be referenced together with captured_at.
CREATE TABLE IF NOT EXISTS alerts (
  id                 bigserial PRIMARY KEY,
  detection_id       bigint NOT NULL REFERENCES detection_keys (detection_pk),
  watchlist_id       uuid NOT NULL REFERENCES watchlists (id),
  watchlist_entry_id uuid REFERENCES watchlist_entries (id) ON DELETE SET NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  -- A re-run of the matcher for the same detection never doubles an alert.
  UNIQUE (detection_id, watchlist_id)
);
CREATE INDEX IF NOT EXISTS alerts_created_idx ON alerts (created_at);

CREATE TABLE IF NOT EXISTS alert_queue (
  id            bigserial PRIMARY KEY,
  detection_id  bigint NOT NULL REFERENCES detection_keys (detection_pk),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'complete', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  last_error    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  processed_at  timestamptz,
  -- Set when a worker claims the item; the reaper returns items locked too long.
  locked_at     timestamptz,
  next_retry_at timestamptz NOT NULL DEFAULT now()
);
-- Polled by (status, created_at) with FOR UPDATE SKIP LOCKED.
CREATE INDEX IF NOT EXISTS alert_queue_status_created_idx ON alert_queue (status, created_at);
