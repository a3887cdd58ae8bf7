-- 0042: recipients per list, beyond its subscribers (docs/watchlists.md "Recipients").
--
-- A list names bot chats and webhook targets that hear its alerts, and may be published on
-- its own MQTT topic. A chat is one the bot already knows (a row of telegram_links, linked
-- with a code like any chat: a group chat linked by its admin is one too); the account it is
-- linked to is its owner, whose sites decide which alerts it hears (docs/sites.md). Removing a
-- link or a webhook target drops it from every list (ON DELETE CASCADE), so delivery never
-- looks for a recipient that is gone.
CREATE TABLE IF NOT EXISTS watchlist_recipient_chats (
  watchlist_id uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  chat_id      bigint NOT NULL REFERENCES telegram_links (chat_id) ON DELETE CASCADE,
  added_by     uuid REFERENCES users (id) ON DELETE SET NULL,
  added_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (watchlist_id, chat_id)
);
CREATE INDEX IF NOT EXISTS watchlist_recipient_chats_chat_idx ON watchlist_recipient_chats (chat_id);

CREATE TABLE IF NOT EXISTS watchlist_recipient_webhooks (
  watchlist_id uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  target_id    uuid NOT NULL REFERENCES webhook_targets (id) ON DELETE CASCADE,
  added_by     uuid REFERENCES users (id) ON DELETE SET NULL,
  added_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (watchlist_id, target_id)
);
CREATE INDEX IF NOT EXISTS watchlist_recipient_webhooks_target_idx ON watchlist_recipient_webhooks (target_id);

-- The list's alerts also go out on `<prefix>/watchlists/<list id>/alerts` (docs/mqtt.md).
ALTER TABLE watchlists ADD COLUMN IF NOT EXISTS mqtt_publish boolean NOT NULL DEFAULT false;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON watchlist_recipient_chats, watchlist_recipient_webhooks TO alpr_app;
  END IF;
END
$$;
