import type { DbSession } from '../db/session.ts';
import { ALL_SITES, scopeCondition, type SiteScope } from '../sites/scope.ts';

/**
 * The figures behind the reports page (docs/dashboard.md "Reports"), each one statement over
 * an index: detections per hour and collector (the last 24 hours: one or two monthly
 * partitions, `(collector_id, captured_at)`), alerts per day (`alerts (created_at)`), and
 * collector health per hour (collector_health_hours).
 */
export interface HourlyCount {
  collectorId: string;
  siteName: string;
  /** Hour start, ms. */
  hour: number;
  count: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** ` AND <scope on column>` with its parameter appended, or '' for all sites (docs/sites.md). */
function andInScope(scope: SiteScope, column: string, params: unknown[]): string {
  const condition = scopeCondition(scope, column, (v) => `$${params.push(v)}`);
  return condition ? ` AND ${condition}` : '';
}

export async function detectionsPerHour(db: DbSession, now: Date, hours = 24, scope: SiteScope = ALL_SITES): Promise<HourlyCount[]> {
  const from = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS);
  const params: unknown[] = [from, now];
  const inScope = andInScope(scope, 'd.collector_id', params);
  const rows = await db.sql<{ collector_id: string; site_name: string; hour: Date; n: string }>(
    `SELECT d.collector_id, c.site_name, date_trunc('hour', d.captured_at, 'UTC') AS hour, count(*)::text AS n
       FROM detections d JOIN collectors c ON c.id = d.collector_id
      WHERE d.captured_at >= $1 AND d.captured_at <= $2${inScope}
      GROUP BY 1, 2, 3`,
    params,
  );
  return rows.map((r) => ({ collectorId: r.collector_id, siteName: r.site_name, hour: new Date(r.hour).getTime(), count: Number(r.n) }));
}

export async function alertsPerDay(db: DbSession, now: Date, days = 30, scope: SiteScope = ALL_SITES): Promise<Array<{ day: number; count: number }>> {
  const from = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS);
  const params: unknown[] = [from, now];
  const inScope = andInScope(scope, 'k.collector_id', params);
  // All sites: alerts alone, as before; a scope joins each alert's read key for its collector.
  const rows = await db.sql<{ day: Date; n: string }>(
    `SELECT date_trunc('day', a.created_at, 'UTC') AS day, count(*)::text AS n FROM alerts a
     ${inScope ? 'JOIN detection_keys k ON k.detection_pk = a.detection_id' : ''}
     WHERE a.created_at >= $1 AND a.created_at <= $2${inScope} GROUP BY 1`,
    params,
  );
  return rows.map((r) => ({ day: new Date(r.day).getTime(), count: Number(r.n) }));
}

export interface HealthHour {
  collectorId: string;
  siteName: string;
  hour: number;
  heartbeats: number;
  maxQueueDepth: number;
  minCamerasOnline: number;
  camerasTotal: number | null;
  /** When the collector was claimed, ms: no heartbeat is owed before (heartbeat-share.ts). */
  claimedAt: number | null;
  /** Its pushed configuration, for the interval it was told (collectors/heartbeat-interval.ts). */
  config: Record<string, unknown>;
}

/** The first hour of the window `collectorHealth` reads, ms. */
export function healthWindowStart(now: Date, hours = 168): number {
  return Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
}

export async function collectorHealth(db: DbSession, now: Date, hours = 168): Promise<HealthHour[]> {
  const from = new Date(healthWindowStart(now, hours));
  const rows = await db.sql<{
    collector_id: string;
    site_name: string;
    hour: Date;
    heartbeats: number;
    max_queue_depth: number;
    min_cameras_online: number;
    cameras_total: number | null;
    claimed_at: Date | null;
    config: Record<string, unknown> | null;
  }>(
    `SELECT h.collector_id, c.site_name, h.hour, h.heartbeats, h.max_queue_depth, h.min_cameras_online, h.cameras_total, c.claimed_at, c.config
       FROM collector_health_hours h JOIN collectors c ON c.id = h.collector_id
      WHERE h.hour >= $1 AND c.status = 'active'`,
    [from],
  );
  return rows.map((r) => ({
    collectorId: r.collector_id,
    siteName: r.site_name,
    hour: new Date(r.hour).getTime(),
    heartbeats: Number(r.heartbeats),
    maxQueueDepth: Number(r.max_queue_depth),
    minCamerasOnline: Number(r.min_cameras_online),
    camerasTotal: r.cameras_total === null ? null : Number(r.cameras_total),
    claimedAt: r.claimed_at === null ? null : new Date(r.claimed_at).getTime(),
    config: typeof r.config === 'string' ? (JSON.parse(r.config) as Record<string, unknown>) : (r.config ?? {}),
  }));
}
