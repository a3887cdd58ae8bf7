-- 0018: the messaging bot's own state (docs/messaging.md): the long-polling offset, saved in
-- the transaction that applies each update, so a restart neither replays nor skips one.
CREATE TABLE IF NOT EXISTS telegram_bot_state (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One unused code per user at a time is looked up by user.
CREATE INDEX IF NOT EXISTS telegram_link_codes_user_idx ON telegram_link_codes (user_id, created_at);
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON telegram_bot_state TO alpr_app;
  END IF;
END
$$;
