/**
 * `GET /api/v1/alerts?since=` (docs/alerts.md "Missed alerts"): the caller's subscribed
 * watchlists' alerts raised at or after `since`, oldest first, in pages. A client that was
 * disconnected asks with the time of the last alert it saw and follows `next_cursor`.
 */
import { isBigintId, timeProblem } from '@alpr/shared/validation/params';
import { HubError } from '../platform/errors.ts';
import type { DbSession } from '../db/session.ts';
import type { AlertState, AlertVerification } from '../db/schema/alerts.ts';
import { ALERT_SELECT, type AlertRow } from './payload.ts';
import { scopeCondition, type SiteScope } from '../sites/scope.ts';

export const DEFAULT_ALERT_PAGE = 50;
export const MAX_ALERT_PAGE = 100;

export interface AlertQuery {
  since: Date;
  /** Opaque: `<created_at ISO>|<id>` of the last alert of the previous page. */
  cursor?: string | undefined;
  limit: number;
  state?: AlertState | undefined;
  watchlistId?: string | undefined;
  verification?: AlertVerification | undefined;
}

export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${new Date(row.created_at).toISOString()}|${row.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { at: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = new Date(iso ?? '');
  if (!iso || timeProblem(iso) !== undefined || Number.isNaN(at.getTime()) || !id || !isBigintId(id))
    throw new HubError('bad_request', 'cursor: not a cursor this hub gave out');
  return { at, id };
}

/** Only alerts on reads inside the user's sites (docs/sites.md): the others are not listed, not counted. */
export async function listAlertsForUser(
  db: DbSession,
  userId: string,
  query: AlertQuery,
  scope: SiteScope,
): Promise<{ rows: AlertRow[]; nextCursor: string | null }> {
  // Without a cursor `since` is inclusive: alerts of one batch share a created_at, and a
  // client that saw some of them live must not miss the rest; it drops repeats by alert_id.
  const after = query.cursor ? decodeCursor(query.cursor) : { at: query.since, id: '0' };
  const params: unknown[] = [
    userId,
    after.at.toISOString(),
    after.id,
    query.state ?? null,
    query.watchlistId ?? null,
    query.limit + 1,
    query.verification ?? null,
  ];
  const inScope = scopeCondition(scope, 'd.collector_id', (v) => `$${params.push(v)}`);
  const rows = await db.sql<AlertRow>(
    `${ALERT_SELECT}
     JOIN subscriptions s ON s.watchlist_id = a.watchlist_id AND s.user_id = $1
     WHERE (a.created_at > $2::timestamptz OR (a.created_at = $2::timestamptz AND a.id > $3::bigint))
       AND ($4::text IS NULL OR a.state = $4::text)
       AND ($5::uuid IS NULL OR a.watchlist_id = $5::uuid)
       AND ($7::text IS NULL OR a.verification = $7::text)${inScope ? ` AND ${inScope}` : ''}
     ORDER BY a.created_at, a.id
     LIMIT $6`,
    params,
  );
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : rows;
  const last = page.at(-1);
  return { rows: page, nextCursor: more && last ? encodeCursor(last) : null };
}

/**
 * One alert by id for a user subscribed to its watchlist (`GET /api/v1/alerts/{id}`): the
 * live page fetches the full record (verification, the entry as listed, candidates) for each
 * `alert` message, which keeps to the payload of docs/live.md. Anyone else, and an alert on
 * a read outside the user's sites: not found, as for an alert that does not exist, so ids
 * reveal nothing.
 */
export async function alertForUser(db: DbSession, userId: string, alertId: string, scope: SiteScope): Promise<AlertRow> {
  if (!isBigintId(alertId)) throw new HubError('not_found', 'no such alert');
  const params: unknown[] = [userId, alertId];
  const inScope = scopeCondition(scope, 'd.collector_id', (v) => `$${params.push(v)}`);
  const [row] = await db.sql<AlertRow>(
    `${ALERT_SELECT} JOIN subscriptions s ON s.watchlist_id = a.watchlist_id AND s.user_id = $1 WHERE a.id = $2::bigint${inScope ? ` AND ${inScope}` : ''}`,
    params,
  );
  if (!row) throw new HubError('not_found', 'no such alert');
  return row;
}

/**
 * Before acknowledging, dismissing or verifying: an alert on a read outside the user's sites
 * answers the 404 of a missing one (not the 409 of a handled one, which would confirm it).
 */
export async function requireAlertInScope(db: DbSession, alertId: string, scope: SiteScope): Promise<void> {
  if (scope.all || !isBigintId(alertId)) return;
  const params: unknown[] = [alertId];
  const inScope = scopeCondition(scope, 'k.collector_id', (v) => `$${params.push(v)}`) ?? 'TRUE';
  const [row] = await db.sql<{ ok: number }>(
    `SELECT 1 AS ok FROM alerts a JOIN detection_keys k ON k.detection_pk = a.detection_id WHERE a.id = $1::bigint AND ${inScope}`,
    params,
  );
  if (!row) throw new HubError('not_found', 'no such alert');
}
