-- 0019: the messaging bot's delivery side (docs/messaging.md "Delivery").
-- One queue item per alert and *chat* (a user may link several chats): the unique key gains
-- the chat; push items (no chat) keep one per alert, user and channel.
ALTER TABLE notification_queue ADD COLUMN IF NOT EXISTS chat_id bigint;
-- The message that carried (or is carrying) the item: several items of one chat share one
-- aggregated message.
ALTER TABLE notification_queue ADD COLUMN IF NOT EXISTS message_id bigint;
-- Set when an earlier send of this item may have reached the chat (the worker died while
-- the request was in flight): the next message says it may be a repeat.
ALTER TABLE notification_queue ADD COLUMN IF NOT EXISTS uncertain boolean NOT NULL DEFAULT false;
ALTER TABLE notification_queue DROP CONSTRAINT IF EXISTS notification_queue_alert_id_user_id_channel_key;
CREATE UNIQUE INDEX IF NOT EXISTS notification_queue_delivery_key ON notification_queue (alert_id, user_id, channel, COALESCE(chat_id, 0));
-- `suppressed`: not sent on purpose (muted, quiet hours, per-plate cooldown; the reason in
-- last_error), kept so "why did my phone stay silent" has an answer.
ALTER TABLE notification_queue DROP CONSTRAINT IF EXISTS notification_queue_status_check;
ALTER TABLE notification_queue ADD CONSTRAINT notification_queue_status_check
  CHECK (status IN ('pending', 'processing', 'sent', 'failed', 'suppressed'));
-- The worker looks for chats with due items.
CREATE INDEX IF NOT EXISTS notification_queue_pending_chat_idx ON notification_queue (chat_id, created_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS notification_queue_processing_idx ON notification_queue (locked_at) WHERE status = 'processing';

-- Every message the worker prepares, before it is sent: `prepared` (claimed, not yet sent),
-- `sending` (committed just before the request leaves), `sent`, `failed`, `unknown` (the
-- worker died while the request was in flight: it may or may not have arrived).
CREATE TABLE IF NOT EXISTS telegram_messages (
  id                  bigserial PRIMARY KEY,
  chat_id             bigint NOT NULL,
  state               text NOT NULL CHECK (state IN ('prepared', 'sending', 'sent', 'failed', 'unknown')),
  method              text,
  alerts              integer NOT NULL,
  created_at          timestamptz NOT NULL,
  sending_at          timestamptz,
  sent_at             timestamptz,
  platform_message_id bigint,
  last_error          text
);

-- Per-plate cooldown per chat: a plate that reached a chat is not sent there again until
-- `until`, so a parked car on a watchlist does not ping every pass.
CREATE TABLE IF NOT EXISTS telegram_plate_cooldowns (
  chat_id      bigint NOT NULL,
  plate        text NOT NULL,
  detection_id bigint NOT NULL,
  until        timestamptz NOT NULL,
  PRIMARY KEY (chat_id, plate)
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON telegram_messages, telegram_plate_cooldowns TO alpr_app;
    GRANT USAGE, SELECT ON SEQUENCE telegram_messages_id_seq TO alpr_app;
  END IF;
END
$$;
