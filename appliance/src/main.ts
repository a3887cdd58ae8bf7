/**
 * The appliance process: configuration (the only reader of process.env is config/load.ts),
 * the durable buffer, camera runners, uplink, and the local server on port 8080 (camera
 * pushes and diagnostics). Shut down on SIGTERM/SIGINT; a SIGKILL loses nothing committed.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { closeBuffer, enforceRetention, openBuffer } from './buffer/index.ts';
import { startCameraRunners } from './cameras/runner.ts';
import { createIngestApp } from './cameras/vendor-a-push.ts';
import { loadApplianceConfig, readEnvironment } from './config/load.ts';
import { diagnosticsRoutes } from './diagnostics/routes.ts';
import { createLog } from './log.ts';
import { startUplink, type UplinkHandle } from './uplink/uplink.ts';
import { cursorStoreFor, sinkFor, uplinkPortFor } from './wiring/buffer-ports.ts';

const environment = readEnvironment(process.env);
const config = await loadApplianceConfig(environment);
const log = createLog(config.log_level);
await mkdir(environment.dataDir, { recursive: true, mode: 0o700 });

const buffer = openBuffer({
  file: join(environment.dataDir, 'buffer.sqlite'),
  clock: { now: () => new Date() },
  log,
  synchronous: config.buffer.synchronous,
  limits: { retentionMs: config.buffer.retention_days * 86_400_000, diskCapBytes: config.buffer.disk_cap_bytes },
});
const apiKey = (): string | undefined => environment.apiKey;

let uplink: UplinkHandle | undefined;
const sink = sinkFor(buffer, () => uplink?.kick());
if (config.hub_url) {
  uplink = startUplink({
    buffer: uplinkPortFor(buffer),
    clock: { now: () => Date.now() },
    random: Math.random,
    log,
    config: {
      hubUrl: config.hub_url,
      apiKey,
      windows: { defaultSeconds: config.uplink.window_seconds },
      limits: { maxItems: config.uplink.max_batch_detections, maxBytes: config.uplink.max_batch_bytes },
      backoff: { baseMs: config.uplink.backoff_base_ms, capMs: config.uplink.backoff_cap_ms },
    },
  });
} else {
  log.warn('no hub_url configured: detections are buffered until the appliance is claimed');
}

const runners = startCameraRunners({
  cameras: config.cameras,
  sink,
  cursors: cursorStoreFor(buffer),
  clock: { now: () => Date.now() },
  random: Math.random,
  log,
});

const app = new Hono();
app.route('/', createIngestApp({
  cameras: () => config.cameras,
  sink,
  log,
  clock: { now: () => Date.now() },
  statusOf: (id) => runners.statusOf(id),
  vendorBCameras: () => runners.vendorBCameras(),
}));
app.route('/', diagnosticsRoutes({
  buffer,
  hubUrl: () => config.hub_url,
  apiKey,
  uplink: () => uplink?.state(),
  cameras: () => runners.statuses(),
  now: () => new Date(),
}));
const server = serve({ fetch: app.fetch, hostname: config.setup.host, port: config.setup.port }, (info) => {
  log.info({ url: `http://${info.address}:${info.port}`, cameras: config.cameras.length }, 'appliance listening');
  process.send?.({ ready: true, port: info.port });
});

// Retention: 7 days and the disk cap, checked every minute (cheap: indexed deletes).
const retention = setInterval(() => {
  try {
    enforceRetention(buffer, new Date());
  } catch (err) {
    log.error({ err }, 'retention pass failed');
  }
}, 60_000);
retention.unref();

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'appliance stopping');
  // Everything committed is safe on disk; never let a stuck connection keep us alive.
  setTimeout(() => process.exit(1), 10_000).unref();
  server.close();
  clearInterval(retention);
  await runners.stop();
  await uplink?.stop();
  closeBuffer(buffer);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
