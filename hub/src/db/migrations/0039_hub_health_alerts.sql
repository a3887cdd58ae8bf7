-- 0039: health alerts about the hub itself, not one collector (docs/health.md
-- "search_keys_behind"). Such an alert has no collector: collector_id becomes nullable, and a
-- second partial unique index keeps "open once" for them (NULLs are distinct in the first
-- index, so it would let a hub alert open twice).
ALTER TABLE health_alerts ALTER COLUMN collector_id DROP NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS health_alerts_hub_one_open ON health_alerts (kind) WHERE closed_at IS NULL AND collector_id IS NULL;
