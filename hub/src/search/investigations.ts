/**
 * Investigations (docs/search.md "Investigations"): plate
 * history, one collector's day, plates travelling with a target (convoy), and a target's
 * route. Each is one SQL statement over the indexes search uses; results are bounded.
 */
import type { DbSession } from '../db/session.ts';
import { scopeCondition, type SiteScope } from '../sites/scope.ts';

/** ` AND <the scope on column>` with its parameter appended to `params`, or '' for all sites. */
function andInScope(scope: SiteScope, column: string, params: unknown[]): string {
  const condition = scopeCondition(scope, column, (v) => `$${params.push(v)}`);
  return condition ? ` AND ${condition}` : '';
}

export const MAX_SIGHTINGS = 1_000;

export interface Range {
  start: Date;
  end: Date;
}

type SightingRow = {
  id: string;
  captured_at: Date;
  plate_number: string;
  confidence: number;
  direction: string;
  camera_id: string;
  collector_id: string;
  site_name: string;
  gps_latitude: string | null;
  gps_longitude: string | null;
};

const num = (v: string | null): number | null => (v === null ? null : Number(v));

function sighting(r: SightingRow) {
  return {
    id: String(r.id),
    plate_number: r.plate_number,
    captured_at: new Date(r.captured_at).toISOString(),
    confidence: Number(r.confidence),
    direction: r.direction,
    camera_id: r.camera_id,
    collector: { id: r.collector_id, name: r.site_name, latitude: num(r.gps_latitude), longitude: num(r.gps_longitude) },
  };
}

async function sightingsOf(db: DbSession, plate: string, range: Range, order: 'ASC' | 'DESC', scope: SiteScope): Promise<SightingRow[]> {
  const params: unknown[] = [plate, range.start.toISOString(), range.end.toISOString()];
  const inScope = andInScope(scope, 'd.collector_id', params);
  return db.sql<SightingRow>(
    `SELECT d.id::text AS id, d.captured_at, d.plate_number, d.confidence, d.direction, d.camera_id, d.collector_id, c.site_name, c.gps_latitude, c.gps_longitude
     FROM detections d JOIN collectors c ON c.id = d.collector_id
     WHERE d.plate_normalized = $1 AND d.captured_at BETWEEN $2::timestamptz AND $3::timestamptz${inScope}
     ORDER BY d.captured_at ${order}, d.id ${order}
     LIMIT ${MAX_SIGHTINGS + 1}`,
    params,
  );
}

/** Every sighting of the plate, newest first, with where it was. */
export async function plateHistory(db: DbSession, plate: string, range: Range, scope: SiteScope) {
  const rows = await sightingsOf(db, plate, range, 'DESC', scope);
  return { plate, sightings: rows.slice(0, MAX_SIGHTINGS).map(sighting), truncated: rows.length > MAX_SIGHTINGS };
}

/** The target's sightings in time order as a route, with the time since the previous stop. */
export async function plateRoute(db: DbSession, plate: string, range: Range, scope: SiteScope) {
  const rows = (await sightingsOf(db, plate, range, 'ASC', scope)).slice(0, MAX_SIGHTINGS);
  const stops = rows.map((r, i) => {
    const previous = rows[i - 1];
    return {
      ...sighting(r),
      gap_seconds: previous ? Math.round((new Date(r.captured_at).getTime() - new Date(previous.captured_at).getTime()) / 1000) : null,
      moved: previous ? previous.collector_id !== r.collector_id : null,
    };
  });
  return { plate, stops, truncated: rows.length >= MAX_SIGHTINGS };
}

/**
 * One collector's day (`dayStart` to +24 h): detections and distinct plates per hour, and the
 * plates seen. A collector outside the scope reads as a quiet day, like one with no reads.
 */
export async function locationActivity(db: DbSession, collectorId: string, dayStart: Date, timezone: string, scope: SiteScope) {
  const dayEnd = new Date(dayStart.getTime() + 86_400_000);
  const outside = !scope.all && !scope.collectorIds.includes(collectorId);
  const params = [outside ? '00000000-0000-0000-0000-000000000000' : collectorId, dayStart.toISOString(), dayEnd.toISOString(), timezone];
  const hours = await db.sql<{ hour: number; detections: number; plates: number }>(
    `SELECT extract(hour FROM d.captured_at AT TIME ZONE $4)::int AS hour, count(*)::int AS detections, count(DISTINCT d.plate_normalized)::int AS plates
     FROM detections d WHERE d.collector_id = $1 AND d.captured_at >= $2::timestamptz AND d.captured_at < $3::timestamptz
     GROUP BY 1 ORDER BY 1`,
    params,
  );
  const plates = await db.sql<{ plate: string; sightings: number; first_seen: Date; last_seen: Date }>(
    `SELECT d.plate_number AS plate, count(*)::int AS sightings, min(d.captured_at) AS first_seen, max(d.captured_at) AS last_seen
     FROM detections d WHERE d.collector_id = $1 AND d.captured_at >= $2::timestamptz AND d.captured_at < $3::timestamptz
     GROUP BY d.plate_number ORDER BY count(*) DESC, d.plate_number LIMIT 500`,
    params.slice(0, 3),
  );
  const byHour = new Map(hours.map((h) => [Number(h.hour), h]));
  return {
    collector_id: collectorId,
    timezone,
    from: dayStart.toISOString(),
    to: dayEnd.toISOString(),
    hours: Array.from({ length: 24 }, (_, hour) => ({
      hour,
      detections: Number(byHour.get(hour)?.detections ?? 0),
      plates: Number(byHour.get(hour)?.plates ?? 0),
    })),
    plates: plates.map((p) => ({
      plate: p.plate,
      sightings: Number(p.sightings),
      first_seen: new Date(p.first_seen).toISOString(),
      last_seen: new Date(p.last_seen).toISOString(),
    })),
  };
}

/**
 * Plates seen at the same collector within ±`windowMinutes` of the target on at least
 * `minOccasions` distinct sightings of the target (5 minutes, 3 times), ranked by
 * occasions, then sightings. Looks at the target's latest 1,000 sightings in the range.
 */
/** The convoy statement (exported for the search benchmark's EXPLAIN). */
export function convoyQuery(plate: string, range: Range, windowMinutes: number, minOccasions: number, scope: SiteScope): { text: string; params: unknown[] } {
  const params: unknown[] = [plate, range.start.toISOString(), range.end.toISOString(), windowMinutes, minOccasions];
  // The target's sightings inside the scope only; companions share a sighting's collector, so
  // they are inside it too: a companion seen only elsewhere never shows, not even as a count.
  const inScope = andInScope(scope, 'd.collector_id', params);
  return {
    text: `WITH target AS (
       SELECT d.id, d.collector_id, d.captured_at FROM detections d
       WHERE d.plate_normalized = $1 AND d.captured_at BETWEEN $2::timestamptz AND $3::timestamptz${inScope}
       ORDER BY d.captured_at DESC LIMIT ${MAX_SIGHTINGS}
     )
     -- Grouped by the normalized plate and read from the covering (collector_id, captured_at)
     -- index alone (migration 0016): the OCR variants of one plate are one companion.
     SELECT o.plate_normalized AS plate, count(DISTINCT t.id)::int AS occasions, count(DISTINCT o.id)::int AS sightings,
            min(o.captured_at) AS first_seen, max(o.captured_at) AS last_seen, count(DISTINCT o.collector_id)::int AS collectors
     FROM target t
     JOIN detections o ON o.collector_id = t.collector_id
       AND o.captured_at BETWEEN t.captured_at - make_interval(mins => $4) AND t.captured_at + make_interval(mins => $4)
       AND o.plate_normalized <> $1
     GROUP BY o.plate_normalized
     HAVING count(DISTINCT t.id) >= $5
     ORDER BY occasions DESC, sightings DESC, o.plate_normalized
     LIMIT 100`,
    params,
  };
}

export async function convoy(db: DbSession, plate: string, range: Range, windowMinutes: number, minOccasions: number, scope: SiteScope) {
  const query = convoyQuery(plate, range, windowMinutes, minOccasions, scope);
  const rows = await db.sql<{ plate: string; occasions: number; sightings: number; first_seen: Date; last_seen: Date; collectors: number }>(
    query.text,
    query.params,
  );
  return {
    plate,
    window_minutes: windowMinutes,
    min_occasions: minOccasions,
    companions: rows.map((r) => ({
      plate: r.plate,
      occasions: Number(r.occasions),
      sightings: Number(r.sightings),
      collectors: Number(r.collectors),
      first_seen: new Date(r.first_seen).toISOString(),
      last_seen: new Date(r.last_seen).toISOString(),
    })),
  };
}
