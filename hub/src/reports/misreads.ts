/**
 * Misread rates per camera and per watchlist (docs/dashboard.md "Reports"; docs/alerts.md
 * "Verification"): of the alerts raised in the window that a person verified, the share
 * marked misread. A camera that misreads stands out here before a misread alert is acted on.
 * One statement over `alerts (created_at)`; the camera's name comes from its collector's
 * configuration, as on every alert.
 */
import { cameraName } from '../alerts/payload.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';
import type { DbSession } from '../db/session.ts';
import { ALL_SITES, scopeCondition, type SiteScope } from '../sites/scope.ts';

const DAY_MS = 86_400_000;

export interface VerificationCounts {
  alerts: number;
  confirmed: number;
  misread: number;
}

export interface MisreadRow extends VerificationCounts {
  /** `collector/camera` or the watchlist id. */
  key: string;
  label: string;
}

export interface MisreadReport {
  days: number;
  cameras: MisreadRow[];
  watchlists: MisreadRow[];
}

/** Misread share of the verified alerts, or null when none was verified (no rate to show). */
export function misreadRate(c: VerificationCounts): number | null {
  const verified = c.confirmed + c.misread;
  return verified === 0 ? null : c.misread / verified;
}

/** Highest misread rate first (the camera to look at), then most alerts; unverified-only rows last. */
export function byMisreadRate(a: MisreadRow, b: MisreadRow): number {
  return (misreadRate(b) ?? -1) - (misreadRate(a) ?? -1) || b.alerts - a.alerts || a.label.localeCompare(b.label);
}

export async function misreadRates(db: DbSession, now: Date, days = 30, scope: SiteScope = ALL_SITES): Promise<MisreadReport> {
  const from = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS);
  const params: unknown[] = [from, now];
  const inScope = scopeCondition(scope, 'd.collector_id', (v) => `$${params.push(v)}`);
  const rows = await db.sql<{
    collector_id: string;
    site_name: string;
    config: Record<string, unknown>;
    camera_id: string;
    watchlist_id: string;
    watchlist_name: string;
    alerts: string;
    confirmed: string;
    misread: string;
  }>(
    `SELECT d.collector_id, c.site_name, ${configWithCameraNames('c')} AS config, d.camera_id, a.watchlist_id, w.name AS watchlist_name,
            count(*)::text AS alerts,
            count(*) FILTER (WHERE a.verification = 'confirmed')::text AS confirmed,
            count(*) FILTER (WHERE a.verification = 'misread')::text AS misread
       FROM alerts a
       JOIN watchlists w ON w.id = a.watchlist_id
       JOIN detection_keys k ON k.detection_pk = a.detection_id
       JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
       JOIN collectors c ON c.id = d.collector_id
      WHERE a.created_at >= $1 AND a.created_at <= $2${inScope ? ` AND ${inScope}` : ''}
      GROUP BY d.collector_id, c.site_name, c.id, d.camera_id, a.watchlist_id, w.name`,
    params,
  );
  const cameras = new Map<string, MisreadRow>();
  const watchlists = new Map<string, MisreadRow>();
  const add = (into: Map<string, MisreadRow>, key: string, label: string, r: (typeof rows)[number]): void => {
    const row = into.get(key) ?? { key, label, alerts: 0, confirmed: 0, misread: 0 };
    row.alerts += Number(r.alerts);
    row.confirmed += Number(r.confirmed);
    row.misread += Number(r.misread);
    into.set(key, row);
  };
  for (const r of rows) {
    add(cameras, `${r.collector_id}/${r.camera_id}`, `${r.site_name}, ${cameraName(r.config ?? {}, r.camera_id)}`, r);
    add(watchlists, r.watchlist_id, r.watchlist_name, r);
  }
  return { days, cameras: [...cameras.values()].sort(byMisreadRate), watchlists: [...watchlists.values()].sort(byMisreadRate) };
}
