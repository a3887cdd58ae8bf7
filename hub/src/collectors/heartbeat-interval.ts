import type { HubConfig } from '../config.ts';

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
 * Online when the last heartbeat is at most 3 intervals old (with a 60 s interval: 180 s).
 * A collector that never sent one, or that is not active, is offline.
 */
export function connectivity(
  input: { status: string; lastHeartbeatAt: Date | null; intervalSeconds: number },
  now: Date,
): Connectivity {
  if (input.status !== 'active' || input.lastHeartbeatAt === null) return 'offline';
  const ageMs = now.getTime() - input.lastHeartbeatAt.getTime();
  return ageMs <= MISSED_HEARTBEATS_OFFLINE * input.intervalSeconds * 1000 ? 'online' : 'offline';
}
