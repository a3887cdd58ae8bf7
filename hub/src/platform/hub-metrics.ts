import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createMqttMetrics, type MqttMetrics } from '@alpr/shared/mqtt/metrics';

/**
 * The hub's metrics (docs/metrics.md lists each one): one registry per hub process, carried in
 * `HubDeps.metrics`, never a module-level default registry (tests start several hubs in
 * one process). Instruments the request path moves are here; gauges read at scrape time
 * from the database and the image folder are registered by scrape-gauges.ts.
 */
export interface HubMetrics {
  registry: Registry;
  /** Upload requests by source (`batch`, `webhook`) and result (`accepted`, `backpressure`, `client_error`, `server_error`). */
  ingestRequests: Counter<'source' | 'result'>;
  /** Detections by result (`stored`, `duplicate`, `rejected`), from the per-item answers. */
  ingestDetections: Counter<'result'>;
  ingestSeconds: Histogram<'source'>;
  searchSeconds: Histogram<'route'>;
  /** Counts the live channel's connections at each scrape (main.ts hands in its broker). */
  watchLive(source: { stats(): { connections: number } }): void;
  /** MQTT out's counters and gauges (shared/src/mqtt/metrics.ts); all 0 while MQTT out is off. */
  mqtt: MqttMetrics;
  /** Set once scrape-gauges.ts has registered against a hub's deps. */
  scrapeGaugesRegistered: boolean;
}

export const METRIC_PREFIX = 'alpr_hub_';

/** Seconds; a batch of 50 with images answers in p95 42-45 ms here (docs/performance.md), 120 s is the request timeout. */
const INGEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
/** Seconds; searches are rate limited to 60 a minute, and one over 10 s is a problem whatever its cause. */
const SEARCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

export function createHubMetrics(): HubMetrics {
  const registry = new Registry();
  let live: { stats(): { connections: number } } | undefined;
  const metrics: HubMetrics = {
    registry,
    ingestRequests: new Counter({
      name: `${METRIC_PREFIX}ingest_requests_total`,
      help: 'Upload requests (batch uploads and camera webhooks) by answer.',
      labelNames: ['source', 'result'],
      registers: [registry],
    }),
    ingestDetections: new Counter({
      name: `${METRIC_PREFIX}ingest_detections_total`,
      help: 'Uploaded detections by per-item result.',
      labelNames: ['result'],
      registers: [registry],
    }),
    ingestSeconds: new Histogram({
      name: `${METRIC_PREFIX}ingest_duration_seconds`,
      help: 'Time from request to answer for uploads, body read included.',
      labelNames: ['source'],
      buckets: INGEST_BUCKETS,
      registers: [registry],
    }),
    searchSeconds: new Histogram({
      name: `${METRIC_PREFIX}search_duration_seconds`,
      help: 'Time from request to answer for detection searches.',
      labelNames: ['route'],
      buckets: SEARCH_BUCKETS,
      registers: [registry],
    }),
    watchLive: (source) => {
      live = source;
    },
    mqtt: createMqttMetrics(registry, METRIC_PREFIX),
    scrapeGaugesRegistered: false,
  };
  new Gauge({
    name: `${METRIC_PREFIX}live_connections`,
    help: 'Open live-channel (WebSocket) connections on this hub process.',
    registers: [registry],
    collect() {
      this.set(live?.stats().connections ?? 0);
    },
  });
  return metrics;
}

/** The result label of an upload answer, by HTTP status. */
export function ingestResult(status: number): 'accepted' | 'backpressure' | 'client_error' | 'server_error' {
  if (status === 202) return 'backpressure';
  if (status < 400) return 'accepted';
  return status < 500 ? 'client_error' : 'server_error';
}

/** Counts one batch's per-item answers. */
export function countDetections(metrics: HubMetrics | undefined, results: readonly { status: string }[]): void {
  if (!metrics) return;
  for (const r of results) metrics.ingestDetections.inc({ result: r.status });
}
