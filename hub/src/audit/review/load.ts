import { ocrNormalize } from '@alpr/shared/detection/ocr';
import type { DbSession } from '../../db/session.ts';
import type { Lookup } from './flags.ts';

/**
 * The lookups an audit review reads (docs/audit-review.md): searches, detection views,
 * investigations and exports. Autocomplete is left out: it is written once per keystroke
 * while someone types a plate, and the search that follows is audited on its own.
 */
const LOOKUP_ACTIONS = ['search.detections', 'search.detection_view', 'search.investigation', 'export.detections'] as const;

type LookupRow = {
  id: string;
  at: Date | string;
  actor_user_id: string;
  action: string;
  query_plate: string | null;
  viewed_plate: string | null;
  viewed_plate_as_read: string | null;
  purpose: string | null;
  case_number: string | null;
  result_count: string | null;
};

/**
 * The plate a lookup named, OCR-normalized, or null for a pattern (`AB*`), several plates or
 * none: a review counts looks at one plate, and a pattern is not one.
 */
export function lookedUpPlate(raw: string | null): string | null {
  if (raw === null || raw.includes('*') || raw.includes(',')) return null;
  const plate = ocrNormalize(raw);
  return plate === '' ? null : plate;
}

/** Users' lookups in [since, until), oldest first; `userId` narrows to one user. */
export async function loadLookups(db: DbSession, since: Date, until: Date, userId?: string): Promise<Lookup[]> {
  const rows = await db.sql<LookupRow>(
    `SELECT a.id::text AS id, a.at, a.actor_user_id::text AS actor_user_id, a.action,
            a.detail->'query'->>'plate' AS query_plate, d.plate_normalized AS viewed_plate, d.plate_number AS viewed_plate_as_read,
            COALESCE(a.detail->>'purpose', a.detail->'query'->>'purpose') AS purpose,
            COALESCE(a.detail->>'case_number', a.detail->'query'->>'case_number') AS case_number,
            CASE WHEN jsonb_typeof(a.detail->'result_count') = 'number' THEN (a.detail->>'result_count') END AS result_count
       FROM audit_log a
       LEFT JOIN detection_keys k
         ON a.action = 'search.detection_view' AND a.target_type = 'detection' AND a.target_id ~ '^[0-9]{1,18}$' AND k.detection_pk = a.target_id::bigint
       LEFT JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
      WHERE a.at >= $1::timestamptz AND a.at < $2::timestamptz AND a.actor_user_id IS NOT NULL
        AND a.action = ANY($3::text[]) AND ($4::uuid IS NULL OR a.actor_user_id = $4::uuid)
      ORDER BY a.at, a.id`,
    [since.toISOString(), until.toISOString(), [...LOOKUP_ACTIONS], userId ?? null],
  );
  return rows.map((r) => ({
    auditId: r.id,
    at: new Date(r.at),
    userId: r.actor_user_id,
    action: r.action,
    plate: r.viewed_plate ?? lookedUpPlate(r.query_plate),
    plateAsRead: r.viewed_plate_as_read ?? (lookedUpPlate(r.query_plate) === null ? null : (r.query_plate?.trim().toLocaleUpperCase('en-US') ?? null)),
    purpose: r.purpose,
    caseNumber: r.case_number,
    resultCount: r.result_count === null ? null : Number(r.result_count),
  }));
}

/** Plates on any watchlist and plates with a detection under an unreleased hold. */
export async function loadReviewContext(db: DbSession, now: Date): Promise<{ listedPlates: Set<string>; heldPlates: Set<string> }> {
  const [listed, held] = await Promise.all([
    db.sql<{ plate: string }>(`SELECT DISTINCT plate_normalized AS plate FROM watchlist_entries`),
    db.sql<{ plate: string }>(
      `SELECT DISTINCT d.plate_normalized AS plate
         FROM legal_holds h
         JOIN detection_keys k ON k.detection_pk = h.detection_id
         JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
        WHERE h.released_at IS NULL AND (h.hold_until IS NULL OR h.hold_until > $1::timestamptz)`,
      [now.toISOString()],
    ),
  ]);
  return { listedPlates: new Set(listed.map((r) => r.plate)), heldPlates: new Set(held.map((r) => r.plate)) };
}

/** Names for the user ids in a review (ids of deleted users stay ids). */
export async function loadUserNames(db: DbSession, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.sql<{ id: string; username: string }>(`SELECT id::text AS id, email AS username FROM users WHERE id = ANY($1::uuid[])`, [[...ids]]);
  return new Map(rows.map((r) => [r.id, r.username]));
}
