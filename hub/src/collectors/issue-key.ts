import { and, eq, gt, isNull, ne, or } from 'drizzle-orm';
import { apiKeyPrefix, generateApiKey, hashSecret } from '@alpr/shared/credentials/index';
import { apiKeys } from '../db/schema/api-keys.ts';
import type { DbSession } from '../db/session.ts';
import { SYSTEM_ACTOR_ID } from '../platform/actor.ts';

export interface IssuedKey {
  keyId: string;
  /** The full key: returned to the caller once and never stored. */
  apiKey: string;
  keyPrefix: string;
}

/** Creates an active key for a collector; only its SHA-256 and first 10 characters are kept. */
export async function issueApiKey(db: DbSession, input: { collectorId: string; createdBy: string; now: Date; name?: string }): Promise<IssuedKey> {
  const apiKey = generateApiKey();
  const keyPrefix = apiKeyPrefix(apiKey);
  const [row] = await db.db
    .insert(apiKeys)
    .values({
      collectorId: input.collectorId,
      keyHash: hashSecret(apiKey),
      keyPrefix,
      name: input.name ?? null,
      createdBy: input.createdBy,
      createdAt: input.now,
    })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error('api key insert returned no row');
  return { keyId: row.id, apiKey, keyPrefix };
}

/**
 * Gives every currently valid key of a collector (except `keepKeyId`) an expiry of
 * `expiresAt`, or keeps its earlier one: the rotation grace period. Returns how many keys
 * were shortened.
 */
export async function expireOtherKeys(db: DbSession, input: { collectorId: string; keepKeyId: string; expiresAt: Date }): Promise<number> {
  const rows = await db.db
    .update(apiKeys)
    .set({ expiresAt: input.expiresAt })
    .where(
      and(
        eq(apiKeys.collectorId, input.collectorId),
        ne(apiKeys.id, input.keepKeyId),
        eq(apiKeys.isActive, true),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, input.expiresAt)),
      ),
    )
    .returning({ id: apiKeys.id });
  return rows.length;
}

/** `revoke_reason` of the keys a replacement ended (replace.ts): api-key-auth.ts answers them `collector_replaced`. */
export const REPLACED_REASON = 'collector_replaced: another device was claimed into this collector';

/** Inside the replacement claim: every other key of the collector revoked at once. */
export async function revokeReplacedKeys(tx: DbSession, input: { collectorId: string; keepKeyId: string; now: Date }): Promise<number> {
  const rows = await tx.db
    .update(apiKeys)
    .set({ isActive: false, revokedAt: input.now, revokedBy: SYSTEM_ACTOR_ID, revokeReason: REPLACED_REASON })
    .where(and(eq(apiKeys.collectorId, input.collectorId), ne(apiKeys.id, input.keepKeyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length;
}
