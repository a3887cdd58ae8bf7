/**
 * Webhook signing secrets at rest (docs/webhooks.md "Secrets at rest"): sealed with the
 * TOTP secret box (platform/secrets/secret-box.ts) under their own HKDF info, so a webhook row key is
 * unrelated to any user's TOTP key though both come from the one hub secret. HMAC needs the
 * secret itself (a hash would not do), hence a box rather than the SHA-256 kept of API keys.
 */
import type { HubConfig } from '../platform/config/hub-config.ts';
import type { DbSession } from '../db/session.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { openSecret, sealSecret, type SealedSecret } from '../platform/secrets/secret-box.ts';

const WEBHOOK_KEY_INFO = 'alpr-hub webhook signing secret v1';

/** `whsec_` + 4 characters: enough to tell two secrets apart on a screen, 3 of 24 bytes. */
export const PREFIX_CHARS = 10;

/**
 * The input key is the hub's secret-box master key (hub-secret.ts derives it from the hub
 * secret; TOTP was its first user); the info string above keeps the row keys apart.
 */
const masterKey = (config: HubConfig): Buffer => authKeys(config).totpMasterKey;

export function sealWebhookSecret(config: HubConfig, secret: string): SealedSecret {
  return sealSecret(masterKey(config), secret, WEBHOOK_KEY_INFO);
}

/** Null when the box does not open: the hub secret changed, or the row was tampered with. */
export function openWebhookSecret(config: HubConfig, sealed: { ciphertext: Uint8Array; salt: Uint8Array }): string | null {
  return openSecret(masterKey(config), sealed, WEBHOOK_KEY_INFO);
}

/** What a target's deliveries fail with when its box does not open (shown on the target). */
export const SEALED_SECRET_UNREADABLE =
  'signing secret cannot be decrypted with this hub secret (HUB_SESSION_SECRET or the hub-secret file changed): restore it, or rotate the target secret';

/**
 * Seals the secrets that rows written before migration 0034 still hold in clear, and clears
 * them, in one transaction; rows locked so two workers starting at once seal each row once.
 * Idempotent: a second run finds nothing. Returns how many were sealed.
 */
export async function sealPlainSecrets(deps: { db: DbSession; config: HubConfig }): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const rows = await tx.sql<{ id: string; secret: string }>(`SELECT id::text AS id, secret FROM webhook_targets WHERE secret IS NOT NULL FOR UPDATE`);
    for (const row of rows) {
      const sealed = sealWebhookSecret(deps.config, row.secret);
      await tx.sql(
        `UPDATE webhook_targets SET secret_ciphertext = $2, secret_salt = $3, secret_prefix = COALESCE(secret_prefix, $4), secret = NULL WHERE id = $1::uuid`,
        [row.id, sealed.ciphertext, sealed.salt, row.secret.slice(0, PREFIX_CHARS)],
      );
    }
    return rows.length;
  });
}
