/**
 * Legal hold (docs/legal-hold.md): preservation recorded beside the
 * write-once detections, never on them. Placing and releasing each commit with their audit
 * row. A held detection cannot be deleted (the foreign key) and retention skips it.
 */
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { writeAudit } from '../platform/audit-writer.ts';
import type { DbSession } from '../db/session.ts';
import { ALL_SITES, scopeCondition, type SiteScope } from '../sites/scope.ts';
import { HubError } from '../platform/errors.ts';
import type { WatchlistActor, WatchlistContext } from '../watchlists/context.ts';

/** One request holds at most this many detections: a case, not the database. */
export const MAX_HELD_PER_REQUEST = 10_000;

export type HoldTarget = { detectionIds: string[] } | { plate: string; start: Date; end: Date };

export interface PlaceHold {
  target: HoldTarget;
  caseId: string;
  reason: string;
  holdUntil: Date | null;
}

/**
 * With a site scope, only reads inside it are held: one outside is "no detection" (404) as if
 * it did not exist, and a plate and time range holds the user's sites' sightings only.
 */
export async function placeHold(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  input: PlaceHold,
  scope: SiteScope = ALL_SITES,
): Promise<{ held: number; already_held: number; case_id: string }> {
  const now = ctx.clock.now();
  if (input.holdUntil && input.holdUntil <= now) throw new HubError('bad_request', 'hold_until: must be in the future');
  return ctx.db.transaction(async (tx) => {
    const targets = await resolve(tx, input.target, scope);
    if (targets.length === 0) throw new HubError('not_found', 'no detection matches: nothing held');
    if (targets.length > MAX_HELD_PER_REQUEST)
      throw new HubError('bad_request', `matches ${targets.length} detections; at most ${MAX_HELD_PER_REQUEST} per request: narrow the time range`);
    // One active hold per detection and case: placing it twice changes nothing.
    const inserted = await tx.sql<{ id: string }>(
      `INSERT INTO legal_holds (detection_id, case_id, reason, hold_until, created_at, created_by)
       SELECT v.id::bigint, $2, $3, $4::timestamptz, $5::timestamptz, $6::uuid
       FROM json_array_elements_text($1::json) AS v (id)
       WHERE NOT EXISTS (SELECT 1 FROM legal_holds h WHERE h.detection_id = v.id::bigint AND h.case_id = $2 AND h.released_at IS NULL)
       RETURNING id::text AS id`,
      [JSON.stringify(targets), input.caseId, input.reason, input.holdUntil?.toISOString() ?? null, now.toISOString(), actor.userId],
    );
    await writeAudit(tx, {
      at: now,
      action: 'legal_hold.place',
      actor: { userId: actor.userId },
      targetType: 'case',
      targetId: input.caseId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      detail: {
        reason: input.reason,
        held: inserted.length,
        already_held: targets.length - inserted.length,
        hold_until: input.holdUntil?.toISOString() ?? null,
        target:
          'plate' in input.target
            ? { plate: input.target.plate, start: input.target.start.toISOString(), end: input.target.end.toISOString() }
            : { detection_ids: input.target.detectionIds.length },
      },
    });
    return { held: inserted.length, already_held: targets.length - inserted.length, case_id: input.caseId };
  });
}

async function resolve(tx: DbSession, target: HoldTarget, scope: SiteScope): Promise<string[]> {
  if ('detectionIds' in target) {
    const params: unknown[] = [JSON.stringify(target.detectionIds)];
    const inScope = scopeCondition(scope, 'collector_id', (v) => `$${params.push(v)}`);
    const rows = await tx.sql<{ id: string }>(
      `SELECT detection_pk::text AS id FROM detection_keys WHERE detection_pk IN (SELECT value::bigint FROM json_array_elements_text($1::json))${inScope ? ` AND ${inScope}` : ''}`,
      params,
    );
    const found = new Set(rows.map((r) => r.id));
    const missing = target.detectionIds.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new HubError(
        'not_found',
        `no detection ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}: nothing held`,
      );
    return [...found];
  }
  const params: unknown[] = [ocrNormalize(target.plate), target.start.toISOString(), target.end.toISOString()];
  const inScope = scopeCondition(scope, 'collector_id', (v) => `$${params.push(v)}`);
  const rows = await tx.sql<{ id: string }>(
    `SELECT id::text AS id FROM detections WHERE plate_normalized = $1 AND captured_at BETWEEN $2::timestamptz AND $3::timestamptz${inScope ? ` AND ${inScope}` : ''} LIMIT ${MAX_HELD_PER_REQUEST + 1}`,
    params,
  );
  return rows.map((r) => r.id);
}

/**
 * Releases every active hold of a case (or the given hold ids of it); with a site scope, only
 * the holds on reads inside it (the others are not the user's to see, nor to release).
 */
export async function releaseHold(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  caseId: string,
  reason: string,
  holdIds?: string[],
  scope: SiteScope = ALL_SITES,
): Promise<{ released: number }> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const params: unknown[] = [caseId, now.toISOString(), actor.userId, holdIds ? JSON.stringify(holdIds) : null];
    const inScope = scopeCondition(scope, 'k.collector_id', (v) => `$${params.push(v)}`);
    const rows = await tx.sql<{ id: string }>(
      `UPDATE legal_holds SET released_at = $2::timestamptz, released_by = $3::uuid
       WHERE case_id = $1 AND released_at IS NULL
         AND ($4::json IS NULL OR id IN (SELECT value::bigint FROM json_array_elements_text($4::json)))
         ${inScope ? `AND EXISTS (SELECT 1 FROM detection_keys k WHERE k.detection_pk = legal_holds.detection_id AND ${inScope})` : ''}
       RETURNING id::text AS id`,
      params,
    );
    if (rows.length === 0) throw new HubError('not_found', `no active hold for case ${caseId}${holdIds ? ' with those ids' : ''}`);
    await writeAudit(tx, {
      at: now,
      action: 'legal_hold.release',
      actor: { userId: actor.userId },
      targetType: 'case',
      targetId: caseId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      detail: { reason, released: rows.length },
    });
    return { released: rows.length };
  });
}

/** With a site scope, only holds on reads inside it (docs/sites.md); all sites: every hold, as before. */
export async function listHolds(
  db: DbSession,
  filter: { caseId?: string | undefined; active?: boolean | undefined; limit: number; afterId?: string | undefined },
  scope: SiteScope = ALL_SITES,
) {
  const params: unknown[] = [filter.caseId ?? null, filter.active ?? null, filter.afterId ?? '0', filter.limit + 1];
  const inScope = scopeCondition(scope, 'k.collector_id', (v) => `$${params.push(v)}`);
  const rows = await db.sql<{
    id: string;
    detection_id: string;
    case_id: string;
    reason: string;
    hold_until: Date | null;
    released_at: Date | null;
    created_at: Date;
    created_by: string | null;
    released_by: string | null;
  }>(
    `SELECT id::text AS id, detection_id::text AS detection_id, case_id, reason, hold_until, released_at, created_at, created_by, released_by
     FROM legal_holds
     WHERE ($1::text IS NULL OR case_id = $1) AND ($2::boolean IS NULL OR (released_at IS NULL) = $2) AND id > $3::bigint
       ${inScope ? `AND EXISTS (SELECT 1 FROM detection_keys k WHERE k.detection_pk = legal_holds.detection_id AND ${inScope})` : ''}
     ORDER BY legal_holds.id LIMIT $4`,
    params,
  );
  const more = rows.length > filter.limit;
  const page = more ? rows.slice(0, filter.limit) : rows;
  const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);
  return {
    data: page.map((h) => ({
      id: h.id,
      detection_id: h.detection_id,
      case_id: h.case_id,
      reason: h.reason,
      hold_until: iso(h.hold_until),
      released_at: iso(h.released_at),
      created_at: iso(h.created_at),
      created_by: h.created_by,
      released_by: h.released_by,
    })),
    next_after: more ? (page.at(-1)?.id ?? null) : null,
  };
}
