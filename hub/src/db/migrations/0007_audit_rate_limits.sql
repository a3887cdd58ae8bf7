-- 0007: audit log (write-once) and shared rate-limit hits.
CREATE TABLE IF NOT EXISTS audit_log (
  id                 bigserial PRIMARY KEY,
  at                 timestamptz NOT NULL DEFAULT now(),
  actor_user_id      uuid,
  actor_collector_id uuid,
  action             text NOT NULL,
  target_type        text,
  target_id          text,
  ip                 varchar(45),
  user_agent         text,
  detail             jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX IF NOT EXISTS audit_log_at_idx ON audit_log (at);
CREATE INDEX IF NOT EXISTS audit_log_actor_user_idx ON audit_log (actor_user_id, at);
CREATE INDEX IF NOT EXISTS audit_log_target_idx ON audit_log (target_type, target_id);

CREATE OR REPLACE TRIGGER audit_log_write_once
  BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION write_once_guard();
CREATE OR REPLACE TRIGGER audit_log_no_truncate
  BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION write_once_guard();

-- Sliding-window rate limits shared by every hub process: one row per hit, counted by
-- (key, at). UNLOGGED: losing the last seconds of hits in a crash is harmless and it saves
-- WAL on the hottest table.
CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_hits (
  id  bigserial PRIMARY KEY,
  key text NOT NULL,
  at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS rate_limit_hits_key_at_idx ON rate_limit_hits (key, at);
