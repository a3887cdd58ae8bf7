import { eq } from 'drizzle-orm';
import { apiKeys } from '../db/schema/api-keys.ts';
import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { revokeKeyInputSchema, type RevokeKeyInput } from './schema.ts';

export interface RevokedKey {
  keyId: string;
  keyPrefix: string;
  collectorId: string;
  revokedAt: Date;
}

/**
 * Revocation (docs/collectors.md: active -> inactive): immediate, no grace. The next request
 * with the key gets 401 and is logged as a revoked-key use. Revoking twice is a conflict:
 * the first revocation's who/when/why are kept.
 */
export async function revokeKey(ctx: CollectorContext, actor: Actor, input: RevokeKeyInput): Promise<RevokedKey> {
  const { keyId, reason } = revokeKeyInputSchema.parse(input);
  if (!isUuid(keyId)) throw new HubError('not_found', 'no such key');
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for('update');
    if (!row) throw new HubError('not_found', 'no such key');
    if (row.revokedAt !== null) throw new HubError('conflict', `key ${row.keyPrefix} was already revoked at ${row.revokedAt.toISOString()}`);
    await tx.db.update(apiKeys).set({ isActive: false, revokedAt: now, revokedBy: actor.userId, revokeReason: reason }).where(eq(apiKeys.id, row.id));
    await writeAudit(tx, {
      at: now,
      action: 'collector.key_revoked',
      actor: { userId: actor.userId },
      targetType: 'api_key',
      targetId: row.id,
      detail: { collector_id: row.collectorId, key_prefix: row.keyPrefix, reason },
    });
    ctx.log.info({ collector_id: row.collectorId, key_prefix: row.keyPrefix }, 'collector key revoked');
    return { keyId: row.id, keyPrefix: row.keyPrefix, collectorId: row.collectorId, revokedAt: now };
  });
}
