import { writeAudit } from './audit.ts';
import { addMs, HOUR_MS, type Actor, type CollectorContext } from './context.ts';
import { lockCollector, requireActive } from './find-collector.ts';
import { expireOtherKeys, issueApiKey } from './issue-key.ts';
import { rotateKeyInputSchema, type RotateKeyInput } from './schema.ts';

/** spec "Key management" response, in the spec's field names. */
export interface RotatedKey {
  new_key: string;
  new_key_id: string;
  new_key_prefix: string;
  old_key_expires_at: string;
  message: string;
}

/**
 * Rotation (spec "API key": active -> both active): a new key, and every other valid key
 * of the collector now expires at now + grace (default 24 h) unless it already expires
 * earlier. Both validate until then. The new key is returned here once.
 */
export async function rotateKey(ctx: CollectorContext, actor: Actor, input: RotateKeyInput): Promise<RotatedKey> {
  const { collectorId, gracePeriodHours } = rotateKeyInputSchema.parse(input);
  const now = ctx.clock.now();
  const oldKeyExpiresAt = addMs(now, gracePeriodHours * HOUR_MS);
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    requireActive(row, 'rotate its key');
    const key = await issueApiKey(tx, { collectorId: row.id, createdBy: actor.userId, now, name: 'rotated' });
    const shortened = await expireOtherKeys(tx, { collectorId: row.id, keepKeyId: key.keyId, expiresAt: oldKeyExpiresAt });
    await writeAudit(tx, {
      at: now,
      action: 'collector.key_rotated',
      actorUserId: actor.userId,
      targetType: 'collector',
      targetId: row.id,
      detail: { new_key_id: key.keyId, new_key_prefix: key.keyPrefix, old_keys: shortened, grace_period_hours: gracePeriodHours },
    });
    ctx.log.info({ collector_id: row.id, key_prefix: key.keyPrefix }, 'collector key rotated');
    return {
      new_key: key.apiKey,
      new_key_id: key.keyId,
      new_key_prefix: key.keyPrefix,
      old_key_expires_at: oldKeyExpiresAt.toISOString(),
      message: `New key created. Previous keys stay valid until ${oldKeyExpiresAt.toISOString()}; install the new key on the collector before then. It is shown only once.`,
    };
  });
}
