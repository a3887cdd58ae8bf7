/**
 * The counts behind the public account (docs/transparency.md "Where each figure comes
 * from"): aggregates only, over the months shown. Every query is bounded by that range and
 * by indexed time columns; the route computes them at most once a minute.
 */
import type { DbSession } from '../db/session.ts';
import { listPurposes } from '../audit/purposes/store.ts';
import { HOLD_ACTION, SEARCH_ACTIONS, type AccountInput } from './account.ts';

const MONTH = (col: string): string => `to_char(date_trunc('month', ${col} AT TIME ZONE 'UTC'), 'YYYY-MM')`;

type Counted = { month: string; n: string | number };
const byMonth = (rows: Counted[]): Map<string, number> => new Map(rows.map((r) => [r.month, Number(r.n)]));

export async function loadAccountInput(db: DbSession, range: { from: Date; to: Date }): Promise<Omit<AccountInput, 'now' | 'horizons' | 'preset'>> {
  const span = [range.from.toISOString(), range.to.toISOString()];
  const [purposes, folded, stored, cameras, alerts, audit] = await Promise.all([
    listPurposes(db, { includeRetired: true }),
    // The hours of the last 5 weeks, and the months the health evaluator folded older hours into.
    db.sql<Counted>(
      `SELECT month, sum(n)::bigint AS n FROM (
         SELECT ${MONTH('hour')} AS month, sum(reads) AS n FROM camera_read_hours
          WHERE hour >= $1::timestamptz AND hour < $2::timestamptz GROUP BY 1
         UNION ALL
         SELECT to_char(month, 'YYYY-MM'), sum(reads) FROM camera_read_months
          WHERE month >= ($1::timestamptz AT TIME ZONE 'UTC')::date AND month < ($2::timestamptz AT TIME ZONE 'UTC')::date GROUP BY 1
       ) f GROUP BY month`,
      span,
    ),
    db.sql<Counted>(
      `SELECT ${MONTH('captured_at')} AS month, count(*)::bigint AS n FROM detections
        WHERE captured_at >= $1::timestamptz AND captured_at < $2::timestamptz GROUP BY 1`,
      span,
    ),
    // A camera is its collector and its id there: two sites may both call one "cam-1".
    db.sql<Counted>(
      `SELECT month, count(DISTINCT camera)::bigint AS n FROM (
         SELECT ${MONTH('hour')} AS month, collector_id::text || '/' || camera_id AS camera FROM camera_read_hours
          WHERE hour >= $1::timestamptz AND hour < $2::timestamptz
         UNION
         SELECT to_char(month, 'YYYY-MM'), collector_id::text || '/' || camera_id FROM camera_read_months
          WHERE month >= ($1::timestamptz AT TIME ZONE 'UTC')::date AND month < ($2::timestamptz AT TIME ZONE 'UTC')::date
         UNION
         SELECT ${MONTH('captured_at')}, collector_id::text || '/' || camera_id FROM detections
          WHERE captured_at >= $1::timestamptz AND captured_at < $2::timestamptz
       ) c GROUP BY month`,
      span,
    ),
    db.sql<{ month: string; hits: string; confirmed: string; misread: string }>(
      `SELECT ${MONTH('created_at')} AS month, count(*)::bigint AS hits,
              count(*) FILTER (WHERE verification = 'confirmed')::bigint AS confirmed,
              count(*) FILTER (WHERE verification = 'misread')::bigint AS misread
         FROM alerts WHERE created_at >= $1::timestamptz AND created_at < $2::timestamptz GROUP BY 1`,
      span,
    ),
    // Purpose as the lookup routes write it (audit/review/load.ts): top level, or in the query.
    db.sql<{ month: string; action: string; purpose: string | null; n: string }>(
      `SELECT ${MONTH('at')} AS month, action, COALESCE(detail->>'purpose', detail->'query'->>'purpose') AS purpose, count(*)::bigint AS n
         FROM audit_log WHERE at >= $1::timestamptz AND at < $2::timestamptz AND action = ANY($3::text[])
        GROUP BY 1, 2, 3`,
      [...span, [...SEARCH_ACTIONS, HOLD_ACTION]],
    ),
  ]);
  return {
    purposes: purposes.map((p) => ({ code: p.code, label: p.label, case_number_required: p.case_number_required, active: p.active })),
    foldedReads: byMonth(folded),
    storedReads: byMonth(stored),
    cameras: byMonth(cameras),
    alerts: new Map(alerts.map((r) => [r.month, { hits: Number(r.hits), confirmed: Number(r.confirmed), misread: Number(r.misread) }])),
    audit: audit.map((r) => ({ month: r.month, action: r.action, purpose: r.purpose, count: Number(r.n) })),
  };
}
