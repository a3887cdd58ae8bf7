import { asc, eq } from 'drizzle-orm';
import { cameras } from '../db/schema/cameras.ts';
import { collectors } from '../db/schema/collectors.ts';
import type { DbSession } from '../db/session.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { sealForDevice } from './cameras/credential-escrow.ts';
import { sealConfigSecretsFor } from './config-secrets.ts';
import { applianceCamera, isPushed, withCentralCameras } from './cameras/render.ts';
import type { Actor } from '../platform/actor.ts';
import { queueCommand } from './commands.ts';
import type { CollectorRow } from './find-collector.ts';

/**
 * The configuration a collector runs: the admin's `config` plus the collector's central
 * cameras (collectors/cameras/render.ts), their credentials sealed to this device's public key. Built
 * afresh for every push and claim, so a replacement box gets the same cameras sealed to its
 * own key. A device that sent no public key at claim gets its cameras without credentials,
 * and the configuration without its secrets (config-secrets.ts).
 */
export async function deviceConfig(tx: DbSession, config: HubConfig, row: Pick<CollectorRow, 'id' | 'config' | 'publicKey'>): Promise<Record<string, unknown>> {
  const all = await tx.db.select().from(cameras).where(eq(cameras.collectorId, row.id)).orderBy(asc(cameras.createdAt), asc(cameras.id));
  const devicePk = row.publicKey ? new Uint8Array(row.publicKey) : undefined;
  const central = all
    .filter(isPushed)
    .map((cam) => applianceCamera(cam, cam.escrowedCredentials && devicePk ? sealForDevice(config, cam.escrowedCredentials, devicePk) : undefined));
  // The admin's secrets sealed to this device before the central cameras join: their
  // `sealed_credentials` are sealed already.
  return withCentralCameras(sealConfigSecretsFor(config, row.config, devicePk), central, new Set(all.map((c) => c.id)));
}

export interface PushedConfig {
  configVersion: number;
  commandId: string | null;
}

/**
 * Inside the caller's transaction (the collector row locked): `config_version` + 1 and, for
 * a collector that is running (active, or suspended: it still heartbeats and applies
 * configuration), a signed `config_update` with the device configuration. A pending collector
 * gets it at claim instead. Older unacknowledged config_update commands stay queued: the
 * appliance skips any whose config_version is not above its own.
 */
export async function pushConfig(
  tx: DbSession,
  hubConfig: HubConfig,
  row: CollectorRow,
  change: { actor: Actor; now: Date; config?: Record<string, unknown> },
): Promise<PushedConfig> {
  const configVersion = row.configVersion + 1;
  const config = change.config ?? row.config;
  await tx.db.update(collectors).set({ config, configVersion, updatedAt: change.now }).where(eq(collectors.id, row.id));
  if (row.status !== 'active' && row.status !== 'disabled') return { configVersion, commandId: null };
  const payload = { config: await deviceConfig(tx, hubConfig, { ...row, config }), config_version: configVersion };
  const command = await queueCommand(tx, { collectorId: row.id, type: 'config_update', payload, now: change.now, createdBy: change.actor.userId });
  return { configVersion, commandId: command.id };
}
