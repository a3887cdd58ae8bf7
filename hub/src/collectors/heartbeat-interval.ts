import type { HubConfig } from '../platform/config/hub-config.ts';

/** docs/collectors.md: 3 missed heartbeats make a collector offline. */
export const MISSED_HEARTBEATS_OFFLINE = 3;

/**
 * The heartbeat interval a collector is told to use: its pushed configuration's
 * `heartbeat_interval_seconds` when that is a positive integer ("a pushed
 * configuration may override"), else the hub default (HUB_HEARTBEAT_SECONDS, 60).
 */
export function heartbeatIntervalSeconds(config: Pick<HubConfig, 'heartbeatSeconds'>, collectorConfig: Record<string, unknown>): number {
  const pushed = collectorConfig['heartbeat_interval_seconds'];
  return typeof pushed === 'number' && Number.isInteger(pushed) && pushed > 0 ? pushed : config.heartbeatSeconds;
}

export type Connectivity = 'online' | 'offline';

/**
 * The one online rule, for the collectors API and page (status.ts) and the live feed's
 * `collector_status` (live/broker.ts), so they cannot contradict each other. Online when the
 * collector is `active` and its last heartbeat is at most 3 of its own intervals old (the
 * interval it was told, heartbeatIntervalSeconds above; 180 s at the default 60 s). The
 * boundary is inclusive: at exactly 3 intervals the third heartbeat is due, not yet missed,
 * and one sent on time lands a few milliseconds after its due time anyway; offline from the
 * first millisecond after. A collector that never sent a heartbeat is offline.
 */
export function connectivity(
  collector: { status: string; lastHeartbeatAt: Date | null; config: Record<string, unknown> },
  hub: Pick<HubConfig, 'heartbeatSeconds'>,
  now: Date,
): Connectivity {
  return collector.status === 'active' && heartbeatsArriving(collector, hub, now) ? 'online' : 'offline';
}

/**
 * The same age rule without the status: whether the box is still heard. A suspended collector
 * (`disabled`) keeps heartbeating, and its page says so ("suspended, heartbeats arriving")
 * while `connectivity` keeps it offline: it takes no uploads.
 */
export function heartbeatsArriving(
  collector: { lastHeartbeatAt: Date | null; config: Record<string, unknown> },
  hub: Pick<HubConfig, 'heartbeatSeconds'>,
  now: Date,
): boolean {
  if (collector.lastHeartbeatAt === null) return false;
  const ageMs = now.getTime() - collector.lastHeartbeatAt.getTime();
  const limitMs = MISSED_HEARTBEATS_OFFLINE * heartbeatIntervalSeconds(hub, collector.config) * 1000;
  return ageMs <= limitMs;
}
