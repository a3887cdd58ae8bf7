import { eq } from 'drizzle-orm';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import type { CreatedCollector } from './create-collector.ts';
import { withFreshClaimCode } from './new-claim-code.ts';
import { lockCollector } from './find-collector.ts';

/**
 * A dead box replaced under the same collector (docs/collectors.md "Replacing a box"). The
 * admin marks the collector `pending_replacement` and gets a claim code (48 h). The box
 * claimed with it becomes this collector: same id, site, cameras (re-sealed to its key by
 * push-config.ts), hash chain, history and filters. At that claim the old box's keys are
 * revoked with REPLACED_REASON (issue-key.ts), so its late calls get 401 `collector_replaced` and nothing it
 * sends is stored. Until then the old box keeps working: marking is not revoking, so a box
 * that comes back to life before the new one arrives loses nothing.
 */
export function markForReplacement(ctx: CollectorContext, actor: Actor, collectorId: string): Promise<CreatedCollector> {
  return withFreshClaimCode(ctx, async (tx, { claimCode, claimCodeExpiresAt, now }) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status !== 'active' && row.status !== 'disabled') {
      throw new HubError('conflict', `collector is ${row.status}: only a claimed collector can be replaced (a pending one needs a new claim code)`);
    }
    await tx.db
      .update(collectors)
      .set({ pendingReplacement: true, replacementRequestedAt: now, claimCode, claimCodeExpiresAt, updatedAt: now })
      .where(eq(collectors.id, row.id));
    await writeAudit(tx, {
      at: now,
      action: 'collector.replacement_started',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { claim_code_expires_at: claimCodeExpiresAt.toISOString(), hardware_id: row.hardwareId, again: row.pendingReplacement },
    });
    return { collectorId: row.id, claimCode, claimCodeExpiresAt };
  });
}

/** Calls off a replacement: the code stops working, the current box stays bound. */
export async function cancelReplacement(ctx: CollectorContext, actor: Actor, collectorId: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    if (!row.pendingReplacement) throw new HubError('conflict', 'collector is not marked for replacement');
    await tx.db
      .update(collectors)
      .set({ pendingReplacement: false, replacementRequestedAt: null, claimCode: null, claimCodeExpiresAt: null, updatedAt: now })
      .where(eq(collectors.id, row.id));
    await writeAudit(tx, { at: now, action: 'collector.replacement_cancelled', actor: { userId: actor.userId }, targetType: 'collector', targetId: row.id });
  });
}
