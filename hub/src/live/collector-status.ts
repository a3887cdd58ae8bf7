/**
 * Collector online/offline changes for the `collectors:status` feed (docs/live.md "Collector
 * status"). Pure. Whether a collector is online is collectors/heartbeat-interval.ts's
 * `connectivity`, the rule the collectors API and page use too.
 */
import type { Connectivity } from '../collectors/heartbeat-interval.ts';
import type { StatementSession } from '../db/session.ts';

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

/** A collector as the live feed's presence poll reads it. */
export interface CollectorPresenceRow {
  id: string;
  status: string;
  site_name: string;
  last_heartbeat_at: Date | null;
  last_heartbeat: { cameras_online?: number; cameras_total?: number } | null;
  config: Record<string, unknown>;
}

/**
 * Every collector, with its own status, as the collectors API reads it: a suspended or
 * decommissioned one is offline there, so the feed announces that change too instead of
 * losing sight of it.
 */
export async function collectorsForPresence(db: StatementSession): Promise<CollectorPresenceRow[]> {
  return db.sql<CollectorPresenceRow & Record<string, unknown>>(`SELECT id, status, site_name, last_heartbeat_at, last_heartbeat, config FROM collectors`);
}
