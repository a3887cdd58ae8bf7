import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { pushConfig, type PushedConfig } from './push-config.ts';
import { lockCollector } from './find-collector.ts';
import { collectorConfigSchema } from './schema.ts';
import { escrowConfigSecrets } from './config-secrets.ts';

export type ConfigUpdated = PushedConfig;

/**
 * Stores a new configuration, increments `config_version` (docs/collectors.md) and, for a
 * running collector, queues a signed `config_update` (push-config.ts). Central cameras
 * (docs/cameras-central.md) are added to what the admin sends; they are not part of it.
 */
export async function updateConfig(ctx: CollectorContext, actor: Actor, collectorId: string, config: Record<string, unknown>): Promise<ConfigUpdated> {
  // Secrets are sealed before the row is written: the database never holds them in clear.
  const parsed = escrowConfigSecrets(ctx.config, collectorConfigSchema.parse(config));
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await lockCollector(tx, collectorId);
    if (row.status === 'decommissioned') throw new HubError('conflict', 'collector is decommissioned');
    const pushed = await pushConfig(tx, ctx.config, row, { actor, now, config: parsed });
    await writeAudit(tx, {
      at: now,
      action: 'collector.config_updated',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: row.id,
      detail: { config_version: pushed.configVersion, command_id: pushed.commandId },
    });
    return pushed;
  });
}
