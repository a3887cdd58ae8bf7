import { generateClaimCode } from '@alpr/shared/credentials/index';
import { eq } from 'drizzle-orm';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import { addMs } from '../platform/clock.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { CLAIM_CODE_LIFETIME_MS, type CreatedCollector } from './create-collector.ts';
import { isUniqueViolation } from '../db/sql-errors.ts';
import { lockCollector } from './find-collector.ts';
import type { DbSession } from '../db/session.ts';

/**
 * Runs `write` with a fresh claim code valid 48 hours, in its own transaction; a code that
 * collides with one in use (the unique index) is drawn again, five times at most.
 */
export async function withFreshClaimCode<T>(
  ctx: CollectorContext,
  write: (tx: DbSession, code: { claimCode: string; claimCodeExpiresAt: Date; now: Date }) => Promise<T>,
): Promise<T> {
  const now = ctx.clock.now();
  const claimCodeExpiresAt = addMs(now, CLAIM_CODE_LIFETIME_MS);
  for (let attempt = 0; attempt < 5; attempt++) {
    const claimCode = generateClaimCode();
    try {
      return await ctx.db.transaction((tx) => write(tx, { claimCode, claimCodeExpiresAt, now }));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new Error('could not find an unused claim code');
}

/**
 * A new claim code for a collector still `pending` (its code expired, or was lost before
 * the installer used it): a fresh code valid 48 hours replaces the old one, which stops
 * working at once. Only pending collectors: an active one is re-bound by provisioning.
 */
export function issueNewClaimCode(ctx: CollectorContext, actor: Actor, collectorId: string): Promise<CreatedCollector> {
  return withFreshClaimCode(ctx, async (tx, { claimCode, claimCodeExpiresAt, now }) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status !== 'pending') throw new HubError('conflict', `collector is ${row.status}: only a pending collector gets a new claim code`);
    await tx.db.update(collectors).set({ claimCode, claimCodeExpiresAt, updatedAt: now }).where(eq(collectors.id, row.id));
    await writeAudit(tx, {
      at: now,
      action: 'collector.claim_code_reissued',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: {
        claim_code_expires_at: claimCodeExpiresAt.toISOString(),
        previous_expired: row.claimCodeExpiresAt !== null && row.claimCodeExpiresAt <= now,
      },
    });
    return { collectorId: row.id, claimCode, claimCodeExpiresAt };
  });
}
