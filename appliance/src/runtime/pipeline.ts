import type { HubTrust } from '../hub-api/tls.ts';
import type { DetectionBuffer } from '../buffer/index.ts';
import type { ApplianceMetrics } from '../metrics/appliance-metrics.ts';
import { timedUplinkPort } from '../metrics/upload-timing.ts';
import { startCameraRunners, type CameraRunners } from '../cameras/runner.ts';
import type { ApplianceConfig } from '../config/schema.ts';
import type { HealthSample } from '../lifecycle/health.ts';
import { configFromSettings } from '../uplink/config.ts';
import { startUplink, type UplinkHandle } from '../uplink/uplink.ts';
import { cameraTypeLookup } from './camera-types.ts';
import { cursorStoreFor, sinkFor, uplinkPortFor } from '../wiring/buffer-ports.ts';
import { mqttOutFor } from '../mqtt/out.ts';
import type { Logger } from 'pino';
import type { DetectionSink } from '../cameras/ports.ts';
import type { IntakeMeter } from '../diagnostics/intake-rate.ts';
import type { FrameReader } from '../reader/types.ts';

/**
 * The data path for one configuration: camera runners feeding the buffer, the uplink
 * draining it. A `config_update` replaces the whole pipeline (stop, start with the new
 * configuration); the buffer outlives it, so nothing buffered is touched by a restart.
 */
export interface Pipeline {
  readonly config: ApplianceConfig;
  readonly runners: CameraRunners;
  readonly uplink: UplinkHandle | undefined;
  /** Where camera pushes go: the buffer, waking this pipeline's uplink. */
  readonly sink: DetectionSink;
  health(): HealthSample;
  stop(): Promise<void>;
}

export interface PipelineDeps {
  buffer: DetectionBuffer;
  apiKey: () => string | undefined;
  /** From the configuration or, failing that, the enrollment. */
  hubUrl: string | undefined;
  log: Logger;
  /** Hears the size of every committed detection (diagnostics: disk-cap forecast). */
  intake?: IntakeMeter;
  /** The previous pipeline's uplink was suspended by the hub since then (uplink.ts). */
  suspendedSinceMs?: number;
  /** Hub certificate pins the uplink's connections are checked against (hub-api/tls.ts). */
  trust?: HubTrust;
  /** Times uploads (metrics/upload-timing.ts); absent: no timings. */
  metrics?: ApplianceMetrics;
  /** The on-device plate reader for ordinary cameras (runtime/lazy-reader.ts); outlives the pipeline. */
  reader?: FrameReader;
}

export function startPipeline(config: ApplianceConfig, deps: PipelineDeps): Pipeline {
  let uplink: UplinkHandle | undefined;
  let started: CameraRunners | undefined;
  // MQTT out (docs/mqtt.md "From the appliance"): hears each detection after its commit, never in the way.
  const mqtt = mqttOutFor(config.mqtt, config.cameras, { log: deps.log, ...(deps.metrics ? { metrics: deps.metrics.mqtt } : {}) });
  const sink = sinkFor(deps.buffer, (sizes, item) => {
    deps.intake?.record(sizes.imageBytes, sizes.metadataBytes);
    uplink?.kick();
    mqtt?.detection(item);
  });
  if (deps.hubUrl) {
    uplink = startUplink({
      ...(deps.suspendedSinceMs !== undefined ? { suspendedSinceMs: deps.suspendedSinceMs } : {}),
      ...(deps.trust ? { trust: deps.trust } : {}),
      buffer: deps.metrics ? timedUplinkPort(uplinkPortFor(deps.buffer), deps.metrics) : uplinkPortFor(deps.buffer),
      clock: { now: () => Date.now() },
      random: Math.random,
      log: deps.log,
      // The lookup reads the runners' bootstraps lazily: vendor_b NVR ids are known only once connected.
      config: configFromSettings(
        config.uplink,
        { hubUrl: deps.hubUrl, apiKey: deps.apiKey },
        cameraTypeLookup(config.cameras, () => started?.vendorBCameras() ?? new Map()),
      ),
    });
  } else {
    deps.log.warn('no hub configured: detections are buffered until the appliance is claimed');
  }
  const runners = startCameraRunners({
    cameras: config.cameras,
    sink,
    cursors: cursorStoreFor(deps.buffer),
    clock: { now: () => Date.now() },
    random: Math.random,
    log: deps.log,
    ...(deps.reader ? { reader: deps.reader } : {}),
  });
  started = runners;
  return {
    config,
    runners,
    uplink,
    sink,
    health: () => {
      const u = uplink?.state();
      return {
        cameras: runners.statuses().map((s) => ({ id: s.id, state: s.state, lastError: s.lastError, clockWarnings: s.clock?.warnings.length ?? 0 })),
        ...(u ? { uplink: { consecutiveFailures: u.consecutiveFailures, keyStatus: u.keyStatus, lastError: u.lastError?.message ?? null } } : {}),
      };
    },
    stop: async () => {
      await runners.stop();
      await uplink?.stop();
      await mqtt?.stop();
    },
  };
}
