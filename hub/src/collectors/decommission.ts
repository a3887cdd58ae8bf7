import { and, eq, isNull } from 'drizzle-orm';
import { apiKeys } from '../db/schema/api-keys.ts';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { lockCollector } from './find-collector.ts';

/**
 * Decommission (docs/collectors.md -> `decommissioned`): every key not yet revoked is
 * revoked now, the claim code is cleared, and the record stays (detections, commands and
 * keys keep pointing at it). Unused provisioning tokens die with it: `provision` refuses a
 * decommissioned collector.
 */
export async function decommission(
  ctx: CollectorContext,
  actor: Actor,
  collectorId: string,
  reason = 'collector decommissioned',
): Promise<{ revokedKeys: number }> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status === 'decommissioned') throw new HubError('conflict', 'collector is already decommissioned');
    await tx.db
      .update(collectors)
      .set({ status: 'decommissioned', claimCode: null, claimCodeExpiresAt: null, updatedAt: now })
      .where(eq(collectors.id, row.id));
    const revoked = await tx.db
      .update(apiKeys)
      .set({ isActive: false, revokedAt: now, revokedBy: actor.userId, revokeReason: reason })
      .where(and(eq(apiKeys.collectorId, row.id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    await writeAudit(tx, {
      at: now,
      action: 'collector.decommissioned',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { previous_status: row.status, revoked_keys: revoked.length, reason },
    });
    ctx.log.info({ collector_id: row.id, revoked_keys: revoked.length }, 'collector decommissioned');
    return { revokedKeys: revoked.length };
  });
}
