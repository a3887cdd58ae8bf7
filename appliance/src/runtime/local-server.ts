import type { AddressInfo } from 'node:net';
import type { FrameReader } from '../reader/types.ts';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { serverOptionsFor } from '@alpr/shared/http/timeouts';
import type { Logger } from 'pino';
import type { DetectionBuffer } from '../buffer/index.ts';
import { createIngestApp } from '../cameras/vendor-a-push.ts';
import type { ApplianceEnvironment } from '../config/load.ts';
import type { ApplianceConfig } from '../config/schema.ts';
import { createIntakeMeter, type IntakeMeter } from '../diagnostics/intake-rate.ts';
import { diagnosticsRoutes } from '../diagnostics/routes.ts';
import { takeSnapshot, type DiagnosticsSources } from '../diagnostics/snapshot.ts';
import { createApplianceHttpApp } from '../http/app.ts';
import { APPLIANCE_TIMEOUTS } from '../http/edge.ts';
import { lanOnly, socketAddress, type AddressOf } from '../http/request-guards.ts';
import type { EnrollmentReport } from '../keystore/enrollment-state.ts';
import { createApplianceMetrics, registerApplianceGauges, type ApplianceMetrics } from '../metrics/appliance-metrics.ts';
import { applianceMetricsRoutes } from '../metrics/routes.ts';
import type { HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import { fileCameraStore } from '../setup/camera-store.ts';
import type { Claimed } from '../setup/enroll.ts';
import { setupRoutes } from '../setup/routes.ts';
import type { HardwareIdentity } from '../vault/hardware-identity.ts';
import type { DiskCap } from './disk-cap.ts';
import { pushAdmission } from './ingest-admission.ts';
import type { Pipeline } from './pipeline.ts';
import { PUSH_PREFIX, STATUS_PATH } from '../http/local-paths.ts';

/**
 * The appliance's one local server on :8080: camera pushes, the setup page, diagnostics.
 * Every route but `/healthz` answers the LAN only (docs/setup-page.md "LAN only"): the
 * setup routes guard themselves; the push endpoints and `/api/v1/status` are guarded here,
 * where they are mounted (a forged read from outside the LAN would otherwise be uploaded
 * and hash-chained as evidence, and the status names the hub and the key prefix).
 */
export interface LocalAppDeps {
  environment: ApplianceEnvironment;
  identity: HardwareIdentity;
  log: Logger;
  now: () => Date;
  edgeVersion: string;
  pipeline: () => Pipeline;
  buffer: DetectionBuffer;
  hubUrl: () => string | undefined;
  apiKey: () => string | undefined;
  heartbeat: () => HeartbeatState | undefined;
  enrollment: () => EnrollmentReport;
  diskCap: DiskCap;
  intake: IntakeMeter;
  ingest: ApplianceConfig['ingest'];
  claimedState: () => 'claimed' | 'unclaimed';
  defaultHubUrl?: string;
  addressOf?: AddressOf;
  reloadPipeline: () => Promise<void>;
  onClaimed: (claimed: Claimed) => Promise<void>;
  /** The ordinary cameras' plate reader, for the setup page's "Test" of such a camera. */
  reader?: FrameReader;
  /** The process's metrics registry (docs/metrics.md); absent: one is made here, without upload timings. */
  metrics?: ApplianceMetrics;
}

export { createIntakeMeter };

export function createLocalApp(deps: LocalAppDeps): Hono {
  const { log } = deps;
  const addressOf = deps.addressOf ?? socketAddress;
  const diagnostics: DiagnosticsSources = {
    buffer: deps.buffer,
    hubUrl: deps.hubUrl,
    apiKey: deps.apiKey,
    uplink: () => deps.pipeline().uplink?.state(),
    heartbeat: deps.heartbeat,
    cameras: () => deps.pipeline().runners.statuses(),
    now: deps.now,
    enrollment: deps.enrollment,
    intake: deps.intake,
    diskCap: deps.diskCap,
  };
  // Registered first, so they run before the parts' own handlers.
  const guards = new Hono();
  for (const path of [`${PUSH_PREFIX}*`, STATUS_PATH]) guards.use(path, lanOnly(addressOf));
  const ingestApp = createIngestApp({
    cameras: () => deps.pipeline().config.cameras,
    sink: { accept: (item) => deps.pipeline().sink.accept(item), seen: (ids) => deps.pipeline().sink.seen(ids) },
    log,
    clock: { now: () => deps.now().getTime() },
    statusOf: (id) => deps.pipeline().runners.statusOf(id),
    vendorBCameras: () => deps.pipeline().runners.vendorBCameras(),
    admit: pushAdmission({ addressOf, acceptUnknown: () => deps.pipeline().config.ingest.accept_unknown_cameras, log }),
  });
  // The setup page owns `/` (claim form before the claim, read-only diagnostics after).
  const setupApp = setupRoutes({
    clock: { now: deps.now },
    log,
    identity: deps.identity,
    dataDir: deps.environment.dataDir,
    centralConfigFile: deps.environment.centralConfigFile,
    edgeVersion: deps.edgeVersion,
    cameras: fileCameraStore({ dataDir: deps.environment.dataDir, localConfigFile: deps.environment.localConfigFile, identity: deps.identity, now: deps.now }),
    state: deps.claimedState,
    addressOf,
    ...(deps.defaultHubUrl ? { defaultHubUrl: deps.defaultHubUrl } : {}),
    snapshot: () => takeSnapshot(diagnostics),
    heartbeat: deps.heartbeat,
    onCamerasChanged: deps.reloadPipeline,
    onClaimed: deps.onClaimed,
    ...(deps.reader ? { reader: deps.reader } : {}),
  });
  const metrics = deps.metrics ?? createApplianceMetrics();
  registerApplianceGauges(metrics, { buffer: deps.buffer, cameras: diagnostics.cameras, uplink: diagnostics.uplink, now: deps.now });
  // Loopback or the bearer token, not the LAN guard: metrics.token read per scrape, so a new
  // configuration applies without a restart.
  const metricsApp = applianceMetricsRoutes(metrics, addressOf, () => deps.pipeline().config.metrics.token);
  // The edge (body checks, one error envelope) in front of every part: http/app.ts.
  return createApplianceHttpApp(log, [guards, metricsApp, ingestApp, setupApp, diagnosticsRoutes(diagnostics)]);
}

export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port, serverOptions: serverOptionsFor(APPLIANCE_TIMEOUTS) });
    // Header (10 s), request (30 s) and keep-alive (5 s) bounds: a slow or idle client cannot
    // hold a connection. No socket inactivity timeout (applyIdleTimeout): it also fires while
    // the server is still working on the answer, and a claim (vault key derivation, then the
    // hub round trip) took over 10 s on a loaded 2-core machine: `npm start` saw its claim
    // cut off with no response. A client stalling mid-body is still cut at 30 s.
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shown}:${address.port}`,
        port: address.port,
        // Idle keep-alive connections would hold close() open: end them.
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          }),
      });
    });
  });
}
