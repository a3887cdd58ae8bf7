import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { bufferStats, type DetectionBuffer } from '../buffer/index.ts';
import { CAMERA_STATES, type CameraStatus } from '../cameras/status.ts';
import type { UplinkState } from '../uplink/uplink-state.ts';
import { createMqttMetrics, type MqttMetrics } from '@alpr/shared/mqtt/metrics';

/**
 * The appliance's metrics (docs/metrics.md): one registry per appliance process, made once in
 * runtime/appliance.ts so the upload histogram outlives pipeline restarts. Buffer, camera
 * and uplink figures are read at scrape time from what the diagnostics page reads; only
 * the upload timings are observed as they happen (upload-timing.ts).
 */
export interface ApplianceMetrics {
  registry: Registry;
  uploadSeconds: Histogram<'outcome'>;
  uploadFailures: Counter<'kind'>;
  /** MQTT out's counters and gauges (shared/src/mqtt/metrics.ts); all 0 without an `[mqtt]` section. */
  mqtt: MqttMetrics;
  /** Set once registerApplianceGauges has run against this registry. */
  scrapeGaugesRegistered: boolean;
}

export interface ApplianceMetricSources {
  buffer: DetectionBuffer;
  cameras: () => CameraStatus[];
  uplink: () => UplinkState | undefined;
  now: () => Date;
}

export const METRIC_PREFIX = 'alpr_appliance_';

/** Seconds; a 50-detection batch with images takes ~0.1 s on a LAN, a 5 MB one ~40 s over a 1 Mbit/s uplink. */
const UPLOAD_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createApplianceMetrics(): ApplianceMetrics {
  const registry = new Registry();
  // The process's own figures (resident memory, heap, event loop delay, CPU): the ordinary
  // cameras' reader shares the box with the buffer and the uplink, and these are how an
  // operator sees that it neither holds up the event loop nor outgrows the device's memory.
  // Read at scrape time; the event loop delay's percentiles cover the time since the last scrape.
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX, eventLoopMonitoringPrecision: 10 });
  return {
    registry,
    uploadSeconds: new Histogram({
      name: `${METRIC_PREFIX}upload_duration_seconds`,
      help: "From taking a batch out of the buffer to the hub's answer settling it, by outcome (acknowledged, rejected, failed).",
      labelNames: ['outcome'],
      buckets: UPLOAD_BUCKETS,
      registers: [registry],
    }),
    uploadFailures: new Counter({
      name: `${METRIC_PREFIX}upload_failures_total`,
      help: 'Uploads that settled nothing (the batch went back to waiting), by kind.',
      labelNames: ['kind'],
      registers: [registry],
    }),
    mqtt: createMqttMetrics(registry, METRIC_PREFIX),
    scrapeGaugesRegistered: false,
  };
}

/** Registers the scrape-time figures against the running appliance's sources (once per registry). */
export function registerApplianceGauges(metrics: ApplianceMetrics, sources: ApplianceMetricSources): void {
  if (metrics.scrapeGaugesRegistered) return;
  metrics.scrapeGaugesRegistered = true;
  const registers = [metrics.registry];
  // One bufferStats per scrape (a few indexed SQLite counts), shared by the buffer gauges:
  // prom-client collects them one after another within the same scrape.
  let cached: { at: number; stats: ReturnType<typeof bufferStats> } | undefined;
  const stats = () => {
    const at = Date.now();
    if (!cached || at - cached.at > 1000) cached = { at, stats: bufferStats(sources.buffer) };
    return cached.stats;
  };

  new Gauge({
    name: `${METRIC_PREFIX}buffer_detections`,
    help: 'Detections in the buffer by upload state (pending, in_flight, …).',
    labelNames: ['state'],
    registers,
    collect() {
      cached = undefined; // the first collector of a scrape reads afresh
      for (const [state, n] of Object.entries(stats().states)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}buffer_oldest_pending_age_seconds`,
    help: 'How long the oldest detection waiting for upload has waited; 0 when none waits.',
    registers,
    collect() {
      this.set((stats().oldestPendingAgeMs ?? 0) / 1000);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}buffer_bytes`,
    help: 'Buffer sizes: buffered (payload and images of kept rows), images, database_used (the disk cap measure), database_file.',
    labelNames: ['kind'],
    registers,
    collect() {
      const { bytes } = stats();
      this.set({ kind: 'buffered' }, bytes.buffered);
      this.set({ kind: 'images' }, bytes.images);
      this.set({ kind: 'database_used' }, bytes.databaseUsed);
      this.set({ kind: 'database_file' }, bytes.databaseFile);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}buffer_dead_letters`,
    help: 'Detections the hub refused for good, kept for diagnostics until retention.',
    registers,
    collect() {
      this.set(stats().rejected);
    },
  });

  new Gauge({
    name: `${METRIC_PREFIX}camera_state`,
    help: "Each camera's connection state: 1 for the state it is in, 0 for the others.",
    labelNames: ['camera', 'state'],
    registers,
    collect() {
      this.reset(); // a camera removed from the configuration disappears
      for (const camera of sources.cameras()) for (const state of CAMERA_STATES) this.set({ camera: camera.id, state }, camera.state === state ? 1 : 0);
    },
  });
  for (const [counter, name, help] of [
    ['reads', 'camera_reads_total', 'Detections accepted from each camera since its runner started.'],
    ['errors', 'camera_errors_total', 'Failures talking to each camera since its runner started.'],
  ] as const) {
    new Counter({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: ['camera'],
      registers,
      collect() {
        this.reset(); // runners restart with the pipeline: Prometheus reads the drop as a counter reset
        for (const camera of sources.cameras()) this.inc({ camera: camera.id }, camera.counters[counter]);
      },
    });
  }

  new Counter({
    name: `${METRIC_PREFIX}uplink_detections_total`,
    help: "Detections by the hub's answer (stored, duplicate, rejected) since the uplink started.",
    labelNames: ['result'],
    registers,
    collect() {
      this.reset();
      const totals = sources.uplink()?.totals;
      for (const result of ['stored', 'duplicate', 'rejected'] as const) this.inc({ result }, totals?.[result] ?? 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}uplink_consecutive_failures`,
    help: 'Failed uploads in a row (0 after a success); the backoff grows with it.',
    registers,
    collect() {
      this.set(sources.uplink()?.consecutiveFailures ?? 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}uplink_waiting`,
    help: 'Why the uplink does not upload now: backpressure (the hub asked to wait), suspended (by an admin), replaced (another device took over), no_hub (unclaimed).',
    labelNames: ['reason'],
    registers,
    collect() {
      const state = sources.uplink();
      const now = sources.now().getTime();
      this.set({ reason: 'backpressure' }, state?.backpressureUntilMs != null && state.backpressureUntilMs > now ? 1 : 0);
      this.set({ reason: 'suspended' }, state?.suspended ? 1 : 0);
      this.set({ reason: 'replaced' }, state?.replaced ? 1 : 0);
      this.set({ reason: 'no_hub' }, state ? 0 : 1);
    },
  });
}
