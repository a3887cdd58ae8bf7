/**
 * The appliance process. Configuration comes from config/load.ts (the only reader of
 * process.env); the enrollment (collector id, API key, hub key) from the encrypted keystore;
 * camera credentials from the vault. Runs the data pipeline (cameras -> buffer -> uplink),
 * the heartbeat with its command runner once claimed, and the local server on :8080 (camera
 * pushes, diagnostics). A SIGKILL loses nothing committed.
 */
import { serve } from '@hono/node-server';
import { applyIdleTimeout, serverOptionsFor } from '@alpr/shared/http/timeouts';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { apiKeyPrefix } from '@alpr/shared/credentials/index';
import { closeBuffer, enforceRetention, openBuffer } from './buffer/index.ts';
import { createIngestApp } from './cameras/vendor-a-push.ts';
import { readEnvironment } from './config/load.ts';
import { diagnosticsRoutes } from './diagnostics/routes.ts';
import { createApplianceHttpApp } from './http/app.ts';
import { APPLIANCE_TIMEOUTS } from './http/edge.ts';
import { takeSnapshot, type DiagnosticsSources } from './diagnostics/snapshot.ts';
import { fileCameraStore, openSetupVault } from './setup/camera-store.ts';
import { setupRoutes } from './setup/routes.ts';
import { loadApiKey, loadEnrollment, type StoredEnrollment } from './keystore/keystore.ts';
import { createCommandRunner } from './lifecycle/commands.ts';
import { loadConfigWithCredentials } from './lifecycle/config-layers.ts';
import { startHeartbeat, type HeartbeatHandle } from './lifecycle/heartbeat.ts';
import { createLog } from './log.ts';
import { startPipeline, type Pipeline } from './runtime/pipeline.ts';
import { systemTimers } from './uplink/ports.ts';
import { hardwareIdentity } from './vault/hardware-identity.ts';
import { VaultError } from './vault/errors.ts';
import type { Vault } from './vault/vault.ts';

const EDGE_VERSION = '0.1.0';
const startedAt = Date.now();
const environment = readEnvironment(process.env);
await mkdir(environment.dataDir, { recursive: true, mode: 0o700 });
const identity = hardwareIdentity();

// Enrollment: absent = not claimed (the setup page is open). A vault that belongs to other
// hardware or was tampered with is reported and treated as not claimed.
let enrollment: StoredEnrollment | undefined;
let vault: Vault | undefined;
let enrollmentProblem: string | undefined;
try {
  ({ enrollment, vault } = await loadEnrollment({ dataDir: environment.dataDir, identity }));
} catch (error) {
  if (!(error instanceof VaultError) || error.code !== 'not_found') enrollmentProblem = (error as Error).message;
}
const keyContext = { dataDir: environment.dataDir, identity };
let key = await loadApiKey(keyContext, environment.apiKey).catch(() => undefined);
// Every hub call reads the key through this one function, so a rotate_key command switches
// uplink, heartbeat and acks at once without a restart.
const apiKey = (): string | undefined => key?.apiKey;
// Before the claim, cameras added on the setup page keep their passwords in the setup vault.
const loadConfig = async (): Promise<Awaited<ReturnType<typeof loadConfigWithCredentials>>> =>
  loadConfigWithCredentials(environment, vault ?? (await openSetupVault(environment.dataDir, identity)));
const { config, configVersion } = await loadConfig();
const log = createLog(config.log_level);
if (enrollmentProblem) log.error({ problem: enrollmentProblem }, 'stored enrollment unusable: re-claim this appliance');
if (key?.staleEnvironmentPrefix) {
  log.warn({ stale_key_prefix: key.staleEnvironmentPrefix, key_prefix: key.keyPrefix }, 'ALPR_API_KEY holds a key replaced by rotation: using the rotated key from credentials.enc; remove the variable');
}
let hubUrl = config.hub_url ?? enrollment?.hub_url;

const buffer = openBuffer({
  file: join(environment.dataDir, 'buffer.sqlite'),
  clock: { now: () => new Date() },
  log,
  synchronous: config.buffer.synchronous,
  limits: { retentionMs: config.buffer.retention_days * 86_400_000, diskCapBytes: config.buffer.disk_cap_bytes },
});

let pipeline: Pipeline = startPipeline(config, { buffer, apiKey, hubUrl, log });

let heartbeat: HeartbeatHandle | undefined;
/** Heartbeat and command runner: only with an enrollment (collector id, hub key). */
function startClaimedServices(claim: StoredEnrollment, claimVault: Vault, url: string, version: number): void {
  const runner = createCommandRunner({
    collectorId: claim.collector_id,
    hubPublicKey: claim.hub_public_key,
    dataDir: environment.dataDir,
    centralConfigFile: environment.centralConfigFile,
    localConfigFile: environment.localConfigFile,
    vault: claimVault,
    keys: {
      current: apiKey,
      use: (next) => {
        key = { apiKey: next, source: 'encrypted_file', keyPrefix: apiKeyPrefix(next) };
      },
      prove: async () => (heartbeat ? heartbeat.prove() : 'unreachable'),
    },
    initialConfigVersion: version,
    applyConfig: async (next) => {
      await pipeline.stop();
      pipeline = startPipeline(next, { buffer, apiKey, hubUrl: next.hub_url ?? url, log });
    },
    health: () => pipeline.health(),
    stop: () => stopEverything(false),
    // Under systemd (Restart=always) the appliance comes back unclaimed with its setup page open.
    restart: async () => process.exit(0),
    log,
    timers: systemTimers,
  });
  heartbeat = startHeartbeat({
    hubUrl: url,
    apiKey,
    clock: { now: () => Date.now() },
    random: Math.random,
    log,
    intervalSeconds: pipeline.config.heartbeat_interval_seconds,
    runner,
    report: () => {
      const statuses = pipeline.runners.statuses();
      const pending = buffer.sqlite.prepare('SELECT count(*) AS n FROM detections').get() as { n: number };
      return {
        uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
        queue_depth: pending.n,
        cameras_online: statuses.filter((s) => s.state === 'ONLINE').length,
        cameras_total: statuses.length,
        edge_version: EDGE_VERSION,
      };
    },
  });
}
if (enrollment && vault && hubUrl) startClaimedServices(enrollment, vault, hubUrl, configVersion);

/** Restart the data pipeline with the configuration on disk (after a claim or a new camera). */
async function reloadPipeline(): Promise<void> {
  const { config: next } = await loadConfig();
  await pipeline.stop();
  pipeline = startPipeline(next, { buffer, apiKey, hubUrl: next.hub_url ?? hubUrl, log });
}

const diagnostics: DiagnosticsSources = {
  buffer,
  hubUrl: () => hubUrl,
  apiKey,
  uplink: () => pipeline.uplink?.state(),
  cameras: () => pipeline.runners.statuses(),
  now: () => new Date(),
};

const ingestApp = createIngestApp({
  cameras: () => pipeline.config.cameras,
  sink: { accept: (item) => pipeline.sink.accept(item), seen: (ids) => pipeline.sink.seen(ids) },
  log,
  clock: { now: () => Date.now() },
  statusOf: (id) => pipeline.runners.statusOf(id),
  vendorBCameras: () => pipeline.runners.vendorBCameras(),
});
// The setup page owns `/` (claim form before the claim, read-only diagnostics after).
const setupApp = setupRoutes({
  clock: { now: () => new Date() },
  log,
  identity,
  dataDir: environment.dataDir,
  centralConfigFile: environment.centralConfigFile,
  edgeVersion: EDGE_VERSION,
  cameras: fileCameraStore({ dataDir: environment.dataDir, localConfigFile: environment.localConfigFile, identity, now: () => new Date() }),
  state: () => (enrollment || key ? 'claimed' : 'unclaimed'),
  ...(config.hub_url ? { defaultHubUrl: config.hub_url } : {}),
  snapshot: () => takeSnapshot(diagnostics),
  heartbeat: () => heartbeat?.state(),
  onCamerasChanged: () => reloadPipeline(),
  onClaimed: async (claimed) => {
    ({ enrollment, vault } = await loadEnrollment(keyContext));
    key = await loadApiKey(keyContext, environment.apiKey);
    hubUrl = claimed.hubUrl;
    log.info({ collector_id: claimed.collectorId, key_prefix: claimed.keyPrefix }, 'claimed');
    await reloadPipeline();
    if (enrollment && vault) startClaimedServices(enrollment, vault, claimed.hubUrl, claimed.configVersion);
  },
});
const app = createApplianceHttpApp(log, [ingestApp, setupApp, diagnosticsRoutes(diagnostics)]);
const serverOptions = serverOptionsFor(APPLIANCE_TIMEOUTS);
const server = serve({ fetch: app.fetch, hostname: config.setup.host, port: config.setup.port, serverOptions }, (info) => {
  log.info({ url: `http://${info.address}:${info.port}`, cameras: config.cameras.length, claimed: Boolean(enrollment) }, 'appliance listening');
  process.send?.({ ready: true, port: info.port });
});

applyIdleTimeout(server, APPLIANCE_TIMEOUTS);

// Retention: 7 days and the disk cap, checked every minute (indexed deletes: cheap).
const retention = setInterval(() => {
  try {
    enforceRetention(buffer, new Date());
  } catch (err) {
    log.error({ err }, 'retention pass failed');
  }
}, 60_000);
retention.unref();

let stopping = false;
/** Stops every loop and closes the buffer; `exit` ends the process (signals), a wipe does not. */
async function stopEverything(exit: boolean): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Everything committed is safe on disk; never let a stuck connection keep us alive.
  if (exit) setTimeout(() => process.exit(1), 10_000).unref();
  server.close();
  clearInterval(retention);
  // Not awaited from inside a wipe: the wipe runs in the heartbeat's command queue.
  if (exit) await heartbeat?.stop();
  await pipeline.stop();
  closeBuffer(buffer);
  if (exit) process.exit(0);
}
process.on('SIGTERM', () => {
  log.info({ signal: 'SIGTERM' }, 'appliance stopping');
  void stopEverything(true);
});
process.on('SIGINT', () => {
  log.info({ signal: 'SIGINT' }, 'appliance stopping');
  void stopEverything(true);
});
