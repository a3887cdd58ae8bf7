/**
 * Collector online/offline changes for the `collectors:status` feed (docs/live.md "Collector
 * status"). Pure. Whether a collector is online is collectors/heartbeat-interval.ts's
 * `connectivity`, the rule the collectors API and page use too.
 */
import type { Connectivity } from '../collectors/heartbeat-interval.ts';

export interface CollectorSnapshot {
  id: string;
  name: string;
  lastHeartbeatAt: Date | null;
  camerasOnline: number | null;
  camerasTotal: number | null;
}

export type Presence = Connectivity;

export interface PresenceChange {
  collector: CollectorSnapshot;
  status: Presence;
  previous: Presence;
}

/** Changes since `before` (collectors new to the map are not changes: they have no previous). */
export function presenceChanges(
  before: ReadonlyMap<string, Presence>,
  now: ReadonlyMap<string, { presence: Presence; snapshot: CollectorSnapshot }>,
): PresenceChange[] {
  const changes: PresenceChange[] = [];
  for (const [id, { presence, snapshot }] of now) {
    const previous = before.get(id);
    if (previous !== undefined && previous !== presence) changes.push({ collector: snapshot, status: presence, previous });
  }
  return changes;
}
