import { eq } from 'drizzle-orm';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../errors.ts';
import { writeAudit } from '../audit/write.ts';
import type { Actor, CollectorContext } from './context.ts';
import { queueCommand } from './commands.ts';
import { lockCollector } from './find-collector.ts';
import { collectorConfigSchema } from './schema.ts';

export interface ConfigUpdated {
  configVersion: number;
  commandId: string | null;
}

/**
 * Stores a new configuration, increments `config_version` (docs/collectors.md) and, for an
 * active collector, queues a signed `config_update` carrying `{ config, config_version }`.
 * A pending collector gets the configuration at claim instead. Older unacknowledged
 * config_update commands stay queued: the appliance skips any whose config_version is
 * not above its own.
 */
export async function updateConfig(ctx: CollectorContext, actor: Actor, collectorId: string, config: Record<string, unknown>): Promise<ConfigUpdated> {
  const parsed = collectorConfigSchema.parse(config);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status === 'decommissioned') throw new HubError('conflict', 'collector is decommissioned');
    const configVersion = row.configVersion + 1;
    await tx.db.update(collectors).set({ config: parsed, configVersion, updatedAt: now }).where(eq(collectors.id, row.id));
    const command =
      row.status === 'active'
        ? await queueCommand(tx, {
            collectorId: row.id,
            type: 'config_update',
            payload: { config: parsed, config_version: configVersion },
            now,
            createdBy: actor.userId,
          })
        : undefined;
    await writeAudit(tx, {
      at: now,
      action: 'collector.config_updated',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { config_version: configVersion, command_id: command?.id ?? null },
    });
    return { configVersion, commandId: command?.id ?? null };
  });
}
