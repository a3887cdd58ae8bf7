import type { UplinkBufferPort } from '../uplink/ports.ts';
import type { ApplianceMetrics } from './appliance-metrics.ts';

/**
 * Times uploads from outside the uplink, through the buffer port it already uses: a
 * delivery starts with `nextBatch` and its request's answer is known at the first
 * settlement: `markUploaded` (acknowledged), `markRejected` (the hub refused a detection)
 * or `release` before either (nothing settled: a failure, classified by the release reason).
 * Rows released after an acknowledgement (a 202's unsent rest) are not a failure.
 */
export function timedUplinkPort(port: UplinkBufferPort, metrics: ApplianceMetrics, nowMs: () => number = () => performance.now()): UplinkBufferPort {
  let startedMs: number | undefined;
  const settle = (outcome: 'acknowledged' | 'rejected' | 'failed'): void => {
    if (startedMs === undefined) return;
    metrics.uploadSeconds.observe({ outcome }, (nowMs() - startedMs) / 1000);
    startedMs = undefined;
  };
  const timed: UplinkBufferPort = {
    pendingStats: () => port.pendingStats(),
    nextBatch: async (limits) => {
      const items = await port.nextBatch(limits);
      startedMs = items.length > 0 ? nowMs() : undefined;
      return items;
    },
    markUploaded: (ids) => {
      settle('acknowledged');
      return port.markUploaded(ids);
    },
    markRejected: (id, reason) => {
      settle('rejected');
      return port.markRejected(id, reason);
    },
  };
  const release = port.release?.bind(port);
  if (release) {
    timed.release = (ids, reason) => {
      if (startedMs !== undefined) {
        metrics.uploadFailures.inc({ kind: failureKind(reason) });
        settle('failed');
      }
      return release(ids, reason);
    };
  }
  return timed;
}

/**
 * The release reasons the uplink writes (uplink/deliver.ts, uplink/upload.ts): `HTTP 401…`,
 * `HTTP 403: collector_suspended`, `HTTP 5xx …`, `network: …`; a few fixed words.
 */
export function failureKind(reason: string): 'key_rejected' | 'suspended' | 'http_4xx' | 'http_5xx' | 'network' | 'other' {
  if (reason.startsWith('HTTP 401')) return 'key_rejected';
  if (reason.startsWith('HTTP 403: collector_suspended')) return 'suspended';
  const status = /^HTTP (\d)\d\d/.exec(reason)?.[1];
  if (status === '4') return 'http_4xx';
  if (status === '5') return 'http_5xx';
  if (reason.startsWith('network')) return 'network';
  return 'other';
}
