import { cpus } from 'node:os';
import type { LoadMeasurements } from './backpressure.ts';

/**
 * Keeps the hub's load measurements: exponentially weighted latencies observed by the
 * ingest path, the alert-queue depth refreshed by a caller-provided query, and CPU use
 * sampled from the process's CPU time. `override` lets tests (and operators, for a drill)
 * inject a measurement, which is how each backpressure trigger is tested.
 */
export interface LoadMonitor {
  observeDbWrite(ms: number): void;
  observeImageWrite(ms: number): void;
  setQueueDepth(depth: number): void;
  measurements(): LoadMeasurements;
  override(partial: Partial<LoadMeasurements> | undefined): void;
}

/** Weight of the newest sample: about the last 10 batches dominate. */
const ALPHA = 0.2;

export function createLoadMonitor(sampleCpu: () => number = processCpuSampler()): LoadMonitor {
  let db = 0;
  let image = 0;
  let queueDepth = 0;
  let injected: Partial<LoadMeasurements> | undefined;
  return {
    observeDbWrite: (ms) => {
      db = db === 0 ? ms : db + ALPHA * (ms - db);
    },
    observeImageWrite: (ms) => {
      image = image === 0 ? ms : image + ALPHA * (ms - image);
    },
    setQueueDepth: (depth) => {
      queueDepth = depth;
    },
    measurements: () => ({
      dbWriteLatencyMs: db,
      queueDepth,
      imageStoreLatencyMs: image,
      cpuPercent: sampleCpu(),
      ...injected,
    }),
    override: (partial) => {
      injected = partial;
    },
  };
}

/** CPU use of this process over the interval since the previous call, as % of all cores. */
export function processCpuSampler(): () => number {
  let lastUsage = process.cpuUsage();
  let lastTime = process.hrtime.bigint();
  let lastValue = 0;
  const cores = Math.max(1, cpus().length);
  return () => {
    const now = process.hrtime.bigint();
    const elapsedUs = Number(now - lastTime) / 1000;
    if (elapsedUs < 1_000_000) return lastValue; // at most one new sample a second
    const usage = process.cpuUsage(lastUsage);
    lastValue = Math.min(100, ((usage.user + usage.system) / elapsedUs / cores) * 100);
    lastUsage = process.cpuUsage();
    lastTime = now;
    return lastValue;
  };
}
