/**
 * Health alerts as the API, the live feed and the dashboard show them (docs/admin-api.md
 * "Health alerts"). `HealthAlertRecord` is the wire shape; the dashboard imports the type.
 */
import type { StatementSession } from '../db/session.ts';
import { cameraName } from '../alerts/payload.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';

export interface HealthAlertRecord {
  id: string;
  kind: string;
  /** null for an alert about the hub itself (docs/health.md "Search keys"); its collector_name is then `HUB_NAME`. */
  collector_id: string | null;
  collector_name: string;
  camera_id: string | null;
  camera_name: string | null;
  opened_at: string;
  closed_at: string | null;
  /** A plain sentence for a person. */
  message: string;
  detail: Record<string, unknown>;
}

export interface HealthAlertPage {
  items: HealthAlertRecord[];
  next_before: string | null;
}

export interface HealthAlertQuery {
  state: 'open' | 'closed' | 'all';
  collectorId?: string | undefined;
  limit: number;
  /** Only alerts with a smaller id (the previous page's `next_before`). */
  before?: string | undefined;
}

/** What a hub-wide alert shows where a collector's name would be. */
export const HUB_NAME = 'Hub';

type Row = {
  id: string;
  kind: string;
  collector_id: string | null;
  site_name: string | null;
  camera_id: string | null;
  camera_name: string | null;
  opened_at: Date | string;
  closed_at: Date | string | null;
  message: string;
  detail: Record<string, unknown> | string;
  config: Record<string, unknown> | string | null;
};

const SELECT = `SELECT h.id::text AS id, h.kind, h.collector_id::text AS collector_id, c.site_name, h.camera_id, h.camera_name,
         h.opened_at, h.closed_at, h.message, h.detail, ${configWithCameraNames('c')} AS config
  FROM health_alerts h LEFT JOIN collectors c ON c.id = h.collector_id`;

const iso = (v: Date | string): string => new Date(v).toISOString();
const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function present(r: Row): HealthAlertRecord {
  const config = r.config === null ? {} : json(r.config);
  return {
    id: r.id,
    kind: r.kind,
    collector_id: r.collector_id,
    collector_name: r.site_name ?? HUB_NAME,
    camera_id: r.camera_id,
    camera_name: r.camera_id === null ? null : nameOf(config, r.camera_id, r.camera_name),
    opened_at: iso(r.opened_at),
    closed_at: r.closed_at === null ? null : iso(r.closed_at),
    message: r.message,
    detail: json(r.detail),
  };
}

/** The hub's record of the camera names it best (renamed since?); else the name the alert was raised with. */
function nameOf(config: Record<string, unknown>, cameraId: string, raisedWith: string | null): string {
  const known = cameraName(config, cameraId);
  return known !== cameraId ? known : (raisedWith ?? cameraId);
}

/** Newest first; `next_before` is set when there may be more (a full page). */
export async function listHealthAlerts(db: StatementSession, q: HealthAlertQuery): Promise<HealthAlertPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.state === 'open') where.push('h.closed_at IS NULL');
  if (q.state === 'closed') where.push('h.closed_at IS NOT NULL');
  if (q.collectorId) {
    params.push(q.collectorId);
    where.push(`h.collector_id = $${params.length}::uuid`);
  }
  if (q.before) {
    params.push(q.before);
    where.push(`h.id < $${params.length}::bigint`);
  }
  params.push(q.limit);
  const rows = await db.sql<Row>(`${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY h.id DESC LIMIT $${params.length}`, params);
  const items = rows.map(present);
  const last = items.at(-1);
  return { items, next_before: items.length === q.limit && last ? last.id : null };
}

export async function healthAlertsById(db: StatementSession, ids: readonly string[]): Promise<HealthAlertRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.sql<Row>(`${SELECT} WHERE h.id IN (SELECT jsonb_array_elements_text($1::jsonb)::bigint) ORDER BY h.id`, [JSON.stringify(ids)]);
  return rows.map(present);
}
