-- 0006: messaging bot links, link codes, notification preferences and queue.
CREATE TABLE IF NOT EXISTS telegram_links (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Telegram chat ids exceed 32 bits.
  chat_id          bigint NOT NULL UNIQUE,
  linked_at        timestamptz NOT NULL DEFAULT now(),
  is_active        boolean NOT NULL DEFAULT true,
  muted_until      timestamptz,
  last_delivery_at timestamptz
);
CREATE INDEX IF NOT EXISTS telegram_links_user_idx ON telegram_links (user_id);

CREATE TABLE IF NOT EXISTS telegram_link_codes (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code       varchar(8) NOT NULL UNIQUE CHECK (code ~ '^[A-Za-z0-9]{8}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);

-- watchlist_id NULL = the user's default for that channel. NULLS NOT DISTINCT (PG15+) makes
-- the default unique too.
CREATE TABLE IF NOT EXISTS notification_preferences (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id           uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  watchlist_id      uuid REFERENCES watchlists (id) ON DELETE CASCADE,
  channel           text NOT NULL CHECK (channel IN ('web', 'telegram', 'push')),
  enabled           boolean NOT NULL DEFAULT true,
  quiet_hours_start time,
  quiet_hours_end   time,
  -- Quiet hours are wall-clock times in this IANA zone.
  timezone          text NOT NULL DEFAULT 'UTC',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE NULLS NOT DISTINCT (user_id, watchlist_id, channel)
);

CREATE TABLE IF NOT EXISTS notification_queue (
  id            bigserial PRIMARY KEY,
  alert_id      bigint NOT NULL REFERENCES alerts (id),
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel       text NOT NULL CHECK (channel IN ('telegram', 'push')),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'sent', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  last_error    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  sent_at       timestamptz,
  next_retry_at timestamptz NOT NULL DEFAULT now(),
  locked_at     timestamptz,
  -- One delivery per alert, user and channel, however often fan-out is retried.
  UNIQUE (alert_id, user_id, channel)
);
CREATE INDEX IF NOT EXISTS notification_queue_status_retry_idx ON notification_queue (status, next_retry_at);
