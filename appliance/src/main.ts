/**
 * The appliance process. Configuration comes from config/load.ts (the only reader of
 * process.env); the enrollment (collector id, API key, hub key) from the encrypted keystore;
 * camera credentials from the vault. Runs the data pipeline (cameras -> buffer -> uplink),
 * the heartbeat with its command runner once claimed, and the local server on :8080 (camera
 * pushes, diagnostics). A SIGKILL loses nothing committed.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { closeBuffer, enforceRetention, openBuffer } from './buffer/index.ts';
import { createIngestApp } from './cameras/vendor-a-push.ts';
import { readEnvironment } from './config/load.ts';
import { diagnosticsRoutes } from './diagnostics/routes.ts';
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
const key = await loadApiKey({ dataDir: environment.dataDir, identity }, environment.apiKey).catch(() => undefined);
const apiKey = (): string | undefined => key?.apiKey;
const { config, configVersion } = await loadConfigWithCredentials(environment, vault);
const log = createLog(config.log_level);
if (enrollmentProblem) log.error({ problem: enrollmentProblem }, 'stored enrollment unusable: re-claim this appliance');
const hubUrl = config.hub_url ?? enrollment?.hub_url;

const buffer = openBuffer({
  file: join(environment.dataDir, 'buffer.sqlite'),
  clock: { now: () => new Date() },
  log,
  synchronous: config.buffer.synchronous,
  limits: { retentionMs: config.buffer.retention_days * 86_400_000, diskCapBytes: config.buffer.disk_cap_bytes },
});

let pipeline: Pipeline = startPipeline(config, { buffer, apiKey, hubUrl, log });

let heartbeat: HeartbeatHandle | undefined;
if (enrollment && vault && hubUrl) {
  const runner = createCommandRunner({
    collectorId: enrollment.collector_id,
    hubPublicKey: enrollment.hub_public_key,
    dataDir: environment.dataDir,
    centralConfigFile: environment.centralConfigFile,
    localConfigFile: environment.localConfigFile,
    vault,
    initialConfigVersion: configVersion,
    applyConfig: async (next) => {
      await pipeline.stop();
      pipeline = startPipeline(next, { buffer, apiKey, hubUrl: next.hub_url ?? hubUrl, log });
    },
    health: () => pipeline.health(),
    stop: () => stopEverything(false),
    // Under systemd (Restart=always) the appliance comes back unclaimed with its setup page open.
    restart: async () => process.exit(0),
    log,
    timers: systemTimers,
  });
  heartbeat = startHeartbeat({
    hubUrl,
    apiKey,
    clock: { now: () => Date.now() },
    random: Math.random,
    log,
    intervalSeconds: config.heartbeat_interval_seconds,
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

const app = new Hono();
app.route('/', createIngestApp({
  cameras: () => pipeline.config.cameras,
  sink: { accept: (item) => pipeline.sink.accept(item) },
  log,
  clock: { now: () => Date.now() },
  statusOf: (id) => pipeline.runners.statusOf(id),
  vendorBCameras: () => pipeline.runners.vendorBCameras(),
}));
app.route('/', diagnosticsRoutes({
  buffer,
  hubUrl: () => hubUrl,
  apiKey,
  uplink: () => pipeline.uplink?.state(),
  cameras: () => pipeline.runners.statuses(),
  now: () => new Date(),
}));
const server = serve({ fetch: app.fetch, hostname: config.setup.host, port: config.setup.port }, (info) => {
  log.info({ url: `http://${info.address}:${info.port}`, cameras: config.cameras.length, claimed: Boolean(enrollment) }, 'appliance listening');
  process.send?.({ ready: true, port: info.port });
});

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
