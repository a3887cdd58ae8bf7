import type { Backpressure } from '@alpr/shared/protocol/batch';

/** What the hub knows about its own load when it answers a batch. */
export interface LoadMeasurements {
  /** Recent database write latency (ms), e.g. an EWMA over batch transactions. */
  dbWriteLatencyMs: number;
  /** Pending items in the alert queue (the "detection queue" of the backpressure rules, docs/ingest.md). */
  queueDepth: number;
  /** Recent image store write latency (ms). */
  imageStoreLatencyMs: number;
  /** Host CPU use, 0-100. */
  cpuPercent: number;
}

/** The four triggers (Limits, Backpressure triggers) with their recommended delays. */
export const BACKPRESSURE_TRIGGERS = [
  { reason: 'db_write_latency', delay: 10, active: (m: LoadMeasurements) => m.dbWriteLatencyMs > 500 },
  { reason: 'queue_depth', delay: 30, active: (m: LoadMeasurements) => m.queueDepth > 10_000 },
  { reason: 'image_store_latency', delay: 15, active: (m: LoadMeasurements) => m.imageStoreLatencyMs > 1_000 },
  { reason: 'high_cpu', delay: 20, active: (m: LoadMeasurements) => m.cpuPercent > 80 },
] as const;

/**
 * Decide backpressure for a batch answer. Several triggers at once: the longest delay
 * wins and every reason is named (`queue_depth,high_cpu`), so the collector waits long
 * enough for the slowest part to recover.
 */
export function decideBackpressure(m: LoadMeasurements): Backpressure | undefined {
  const fired = BACKPRESSURE_TRIGGERS.filter((t) => t.active(m));
  if (fired.length === 0) return undefined;
  return {
    active: true,
    recommended_delay_seconds: Math.max(...fired.map((t) => t.delay)),
    reason: fired.map((t) => t.reason).join(','),
  };
}
