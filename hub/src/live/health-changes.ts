/**
 * Health alerts opened or closed since the live feed's last look (docs/live.md "Health
 * alerts"). Pure: the broker reads the rows (HEALTH_LOOK_SQL) when the evaluator's NOTIFY
 * (HEALTH_CHANNEL) arrives and at every status poll, one look at a time, and sends one
 * `health_alert` message per change to admins on `collectors:status`.
 *
 * Why a cursor and not the NOTIFY's ids: the notice is a wake-up only (a lost one is caught by
 * the next poll), and a look tells what changed since the last, whichever woke it. The cursor is the highest id seen plus the ids open at the last look: an alert row is
 * written once open and updated once closed (a reopening is a new row), so "new id, or open
 * and not open before" is an opening and "open before, closed now" a closing.
 */
import type { StatementSession } from '../db/session.ts';
import type { HealthAlertRecord } from '../health/present.ts';

export interface HealthCursor {
  /** The highest health alert id seen ("0" when there is none). */
  maxId: string;
  /** Alerts open at the last look. */
  open: ReadonlySet<string>;
}

export interface HealthLookRow {
  id: string;
  closed: boolean;
}

export interface HealthChange {
  id: string;
  event: 'opened' | 'closed';
}

/** The `health_alert` message's payload: the record as GET /api/v1/admin/health-alerts lists it now. */
export interface HealthAlertPayload {
  event: HealthChange['event'];
  alert: HealthAlertRecord;
}

/**
 * The rows a look needs: every open alert, every alert newer than the cursor, and the ones
 * open at the last look ($1 the cursor's maxId, $2 its open ids as a JSON array). A few
 * rows: open alerts are at most one per kind, collector and camera.
 */
export const HEALTH_LOOK_SQL = `SELECT id::text AS id, closed_at IS NOT NULL AS closed FROM health_alerts
  WHERE closed_at IS NULL OR id > $1::bigint OR id IN (SELECT jsonb_array_elements_text($2::jsonb)::bigint)
  ORDER BY id`;

/** The first look: the open alerts and the newest id, announced as nothing (as collector status does). */
export const HEALTH_BASELINE_SQL = `SELECT id::text AS id, closed_at IS NOT NULL AS closed FROM health_alerts
  WHERE closed_at IS NULL OR id = (SELECT max(id) FROM health_alerts)
  ORDER BY id`;

const bigger = (a: string, b: string): string => (BigInt(a) >= BigInt(b) ? a : b);

/** The cursor after a look; changes only when there was a cursor before (not at the first look). */
export function healthChanges(before: HealthCursor | undefined, rows: readonly HealthLookRow[]): { changes: HealthChange[]; next: HealthCursor } {
  const next: HealthCursor = {
    maxId: rows.reduce((max, r) => bigger(max, r.id), before?.maxId ?? '0'),
    open: new Set(rows.filter((r) => !r.closed).map((r) => r.id)),
  };
  if (!before) return { changes: [], next };
  const changes: HealthChange[] = [];
  const sorted = [...rows].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0));
  for (const r of sorted) {
    // Open and unknown: new, even below maxId (a transaction that took a lower id committed
    // after a higher one). A lower id already closed when first seen is not told: it cannot
    // be told apart from an old closed alert, and its closing has passed.
    const isNew = BigInt(r.id) > BigInt(before.maxId) || (!r.closed && !before.open.has(r.id));
    if (isNew) changes.push({ id: r.id, event: 'opened' });
    if (r.closed && (isNew || before.open.has(r.id))) changes.push({ id: r.id, event: 'closed' });
  }
  return { changes, next };
}

/** The health alerts' state for the next look: since `cursor`, or the baseline at the first look. */
export async function lookAtHealthAlerts(db: StatementSession, cursor: HealthCursor | undefined): Promise<HealthLookRow[]> {
  return cursor
    ? db.sql<HealthLookRow & Record<string, unknown>>(HEALTH_LOOK_SQL, [cursor.maxId, JSON.stringify([...cursor.open])])
    : db.sql<HealthLookRow & Record<string, unknown>>(HEALTH_BASELINE_SQL);
}
