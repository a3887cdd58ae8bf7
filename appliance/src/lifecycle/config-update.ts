import { unlink } from 'node:fs/promises';
import { z } from 'zod';
import type { CommandAckRequest, SignedCommand } from '@alpr/shared/protocol/collector';
import { readCentralLayer, replaceCentralLayer, restorePreviousLayer } from '../config/central-layer.ts';
import type { ConfigTree } from '../config/merge.ts';
import { loadConfigWithCredentials, readLocalLayer, resolveWithCredentials } from './config-layers.ts';
import { cameraAnswers, changedCameraIds, refusedChangedCameras } from './camera-outcomes.ts';
import { detectRegressions, type HealthSample } from './health.ts';
import { DEFAULT_WATCH, sleep, type CommandRunnerDeps } from './ports.ts';

/**
 * config_update (docs/protocol.md): validate the
 * merged result, write the layer (previous kept), apply, watch, and roll back on failure.
 * docs/appliance-lifecycle.md "Rollback rules".
 */
const payloadSchema = z.object({
  config: z.record(z.string(), z.unknown()),
  config_version: z.number().int().min(1),
});

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 500);

export interface ConfigVersionCell {
  get(): number;
  set(version: number): void;
}

export async function runConfigUpdate(deps: CommandRunnerDeps, version: ConfigVersionCell, command: SignedCommand): Promise<CommandAckRequest> {
  const payload = payloadSchema.safeParse(command.payload);
  if (!payload.success) return { status: 'failed', detail: 'payload is not { config, config_version }' };
  const { config_version: next } = payload.data;
  const layer = payload.data.config as ConfigTree;
  const current = version.get();
  if (next <= current) {
    // The hub leaves older config_update commands queued (hub update-config.ts): a newer one won.
    return { status: 'success', detail: `skipped: config_version ${next} is not above ${current}` };
  }

  let config;
  try {
    config = resolveWithCredentials(layer, await readLocalLayer(deps.localConfigFile), deps.vault);
  } catch (error) {
    return { status: 'failed', detail: `invalid configuration, not applied: ${message(error)}` };
  }

  const before = deps.health();
  const changed = changedCameraIds((await readCentralLayer(deps.centralConfigFile).catch(() => undefined))?.config, layer);
  await replaceCentralLayer(deps.centralConfigFile, { config: layer, configVersion: next });
  try {
    await deps.applyConfig(config);
  } catch (error) {
    return rollBack(deps, version, next, [`applying failed: ${message(error)}`]);
  }
  const { reasons, last } = await watch(deps, before);
  reasons.push(...refusedChangedCameras(changed, last));
  const cameras = cameraAnswers(last);
  if (reasons.length > 0) return { ...(await rollBack(deps, version, next, reasons)), ...(cameras.length > 0 ? { cameras } : {}) };
  version.set(next);
  deps.log.info({ command_id: command.id, config_version: next }, 'configuration applied');
  return { status: 'success', detail: `applied config_version ${next}`, ...(cameras.length > 0 ? { cameras } : {}) };
}

async function watch(deps: CommandRunnerDeps, before: HealthSample): Promise<{ reasons: string[]; last: HealthSample | undefined }> {
  const { periodMs, sampleMs } = { ...DEFAULT_WATCH, ...deps.watch };
  const samples: HealthSample[] = [];
  for (let waited = 0; waited < periodMs;) {
    const step = Math.min(sampleMs, periodMs - waited);
    await sleep(deps.timers, step);
    waited += step;
    samples.push(deps.health());
  }
  if (samples.length === 0) samples.push(deps.health());
  return { reasons: detectRegressions(before, samples), last: samples.at(-1) };
}

async function rollBack(deps: CommandRunnerDeps, version: ConfigVersionCell, failed: number, reasons: string[]): Promise<CommandAckRequest> {
  deps.log.warn({ config_version: failed, reasons }, 'new configuration failed: rolling back');
  if (!(await restorePreviousLayer(deps.centralConfigFile))) {
    // No earlier central layer (never happens after a claim, which writes one): back to none.
    await unlink(deps.centralConfigFile).catch(() => undefined);
  }
  const restored = version.get();
  let reapply = '';
  try {
    const { config } = await loadConfigWithCredentials(deps, deps.vault);
    await deps.applyConfig(config);
  } catch (error) {
    reapply = `; re-applying config_version ${restored} failed too: ${message(error)}`;
    deps.log.error({ err: error }, 'previous configuration could not be re-applied');
  }
  return { status: 'rolled_back', detail: `config_version ${failed} rolled back to ${restored}: ${reasons.join('; ')}${reapply}`.slice(0, 2000) };
}
