import { writeAudit } from '../platform/audit-writer.ts';
import { queueCommand } from './commands.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { lockCollector, requireActive } from './find-collector.ts';

/**
 * Queues a signed `wipe` (docs/protocol.md: the collector deletes its
 * credentials, buffer, logs and configuration, then waits for a new claim). The collector
 * record and its keys are left as they are: decommission it, or issue a provisioning
 * token, once the wipe is acknowledged.
 */
export async function wipeCollector(ctx: CollectorContext, actor: Actor, collectorId: string): Promise<{ commandId: string }> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    requireActive(row, 'wipe');
    const command = await queueCommand(tx, { collectorId: row.id, type: 'wipe', payload: {}, now, createdBy: actor.userId });
    await writeAudit(tx, {
      at: now,
      action: 'collector.wipe_queued',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { command_id: command.id },
    });
    ctx.log.info({ collector_id: row.id, command_id: command.id }, 'wipe queued');
    return { commandId: command.id };
  });
}
