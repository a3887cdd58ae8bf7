/**
 * Collector online/offline for the `collectors:status` feed (docs/live.md "Collector
 * status"). Pure: a collector is online while its last heartbeat is younger than three
 * heartbeat intervals (3 x 60 s by default: two lost heartbeats are weather, three are an
 * outage), offline otherwise or when it never sent one.
 */
export const MISSED_HEARTBEATS_OFFLINE = 3;

export interface CollectorSnapshot {
  id: string;
  name: string;
  lastHeartbeatAt: Date | null;
  camerasOnline: number | null;
  camerasTotal: number | null;
}

export type Presence = 'online' | 'offline';

export function presenceOf(lastHeartbeatAt: Date | null, now: Date, heartbeatSeconds: number): Presence {
  if (!lastHeartbeatAt) return 'offline';
  return now.getTime() - lastHeartbeatAt.getTime() < MISSED_HEARTBEATS_OFFLINE * heartbeatSeconds * 1000 ? 'online' : 'offline';
}

export interface PresenceChange {
  collector: CollectorSnapshot;
  status: Presence;
  previous: Presence;
}

/** Changes since `before` (collectors new to the map are not changes: they have no previous). */
export function presenceChanges(before: ReadonlyMap<string, Presence>, now: ReadonlyMap<string, { presence: Presence; snapshot: CollectorSnapshot }>): PresenceChange[] {
  const changes: PresenceChange[] = [];
  for (const [id, { presence, snapshot }] of now) {
    const previous = before.get(id);
    if (previous !== undefined && previous !== presence) changes.push({ collector: snapshot, status: presence, previous });
  }
  return changes;
}
