-- 0034: webhook signing secrets encrypted at rest (docs/webhooks.md "Secrets at rest").
--
-- A target's `whsec_` secret is sealed with a key derived from the hub secret and a per-row
-- 16-byte salt (webhooks/secret-store.ts): `secret_ciphertext` holds nonce || box. A copy of
-- the database alone (a backup, a dump) then signs nothing. `secret_prefix` keeps the first
-- 10 characters for display (`whsec_` + 4 of the 32 base64 characters: 3 of 24 random bytes).
--
-- SQL cannot seal (it has no key): rows written before this migration keep their secret in
-- `secret` until the webhook worker starts, which seals them in one transaction and sets
-- `secret` to NULL. New rows never hold it. The CHECK keeps every row able to sign.
ALTER TABLE webhook_targets ADD COLUMN IF NOT EXISTS secret_ciphertext bytea;
ALTER TABLE webhook_targets ADD COLUMN IF NOT EXISTS secret_salt bytea;
ALTER TABLE webhook_targets ADD COLUMN IF NOT EXISTS secret_prefix text;
ALTER TABLE webhook_targets ALTER COLUMN secret DROP NOT NULL;
UPDATE webhook_targets SET secret_prefix = left(secret, 10) WHERE secret_prefix IS NULL AND secret IS NOT NULL;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'webhook_targets_secret_check') THEN
    ALTER TABLE webhook_targets ADD CONSTRAINT webhook_targets_secret_check
      CHECK (secret_prefix IS NOT NULL AND (secret IS NOT NULL OR (secret_ciphertext IS NOT NULL AND secret_salt IS NOT NULL)));
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_targets TO alpr_app;
  END IF;
END
$$;
