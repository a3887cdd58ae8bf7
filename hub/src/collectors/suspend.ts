import { eq } from 'drizzle-orm';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { lockCollector } from './find-collector.ts';

/**
 * Suspend and resume a site (status `disabled`; docs/collectors.md "Suspend and
 * resume"). While disabled the hub refuses the collector's uploads with 403
 * `collector_suspended` and a Retry-After (ingest), stores nothing from it, and still answers
 * its heartbeats (with `collector_status: disabled`) so configuration, key rotation and wipe
 * keep working. The appliance keeps buffering and drains once resumed. Keys are untouched.
 */
export async function suspendCollector(ctx: CollectorContext, actor: Actor, collectorId: string, reason: string | undefined): Promise<{ suspendedAt: Date }> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status === 'disabled') throw new HubError('conflict', 'collector is already suspended');
    if (row.status !== 'active') throw new HubError('conflict', `collector is ${row.status}: only an active collector can be suspended`);
    await tx.db
      .update(collectors)
      .set({ status: 'disabled', suspendedAt: now, suspendReason: reason ?? null, updatedAt: now })
      .where(eq(collectors.id, row.id));
    await writeAudit(tx, {
      at: now,
      action: 'collector.suspended',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { reason: reason ?? null },
    });
    return { suspendedAt: now };
  });
}

export async function resumeCollector(ctx: CollectorContext, actor: Actor, collectorId: string): Promise<{ suspendedSeconds: number }> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status !== 'disabled') throw new HubError('conflict', `collector is ${row.status}: only a suspended collector can be resumed`);
    await tx.db.update(collectors).set({ status: 'active', suspendedAt: null, suspendReason: null, updatedAt: now }).where(eq(collectors.id, row.id));
    const suspendedSeconds = row.suspendedAt ? Math.max(0, Math.round((now.getTime() - row.suspendedAt.getTime()) / 1000)) : 0;
    await writeAudit(tx, {
      at: now,
      action: 'collector.resumed',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { suspended_seconds: suspendedSeconds },
    });
    return { suspendedSeconds };
  });
}
