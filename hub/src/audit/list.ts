/**
 * The audit log read back (`GET /api/v1/admin/audit`, docs/admin-api.md "Audit log"): newest
 * first, filtered, one page at a time by `before` (the last id of the previous page).
 */
import type { DbSession } from '../db/session.ts';

export interface AuditFilters {
  /** An action, or a prefix ending in `.` that matches every action under it. */
  action?: string | undefined;
  actor_user_id?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  /** The purpose a lookup named (`detail.purpose`, docs/security.md "Purposes"). */
  purpose?: string | undefined;
  /** Its case number, exactly as given (`detail.case_number`). */
  case_number?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  before?: string | undefined;
  /** These rows only (an audit-review flag's rows, at most AUDIT_IDS_MAX of ids-limit.ts). */
  ids?: readonly string[] | undefined;
  /** Leave out the page views (see PAGE_VIEW); the default keeps every row. */
  page_views?: 'include' | 'exclude' | undefined;
  limit: number;
}

/**
 * A page view: a row the admin routes' middleware (audit/middleware.ts) wrote for a GET, such as
 * `admin.collector.list` each time the collectors page refreshes. After a quarter of an hour
 * of use they were the first 100 rows, so the audit page leaves them out unless asked.
 * Lookups (`search.*`, `export.*`) and every change stay: they are what the log is read for.
 */
const PAGE_VIEW = `(action LIKE 'admin.%' AND detail ->> 'method' = 'GET')`;

export interface AuditEntry {
  id: string;
  at: string;
  action: string;
  actor_user_id: string | null;
  actor_collector_id: string | null;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  detail: Record<string, unknown>;
}

/** LIKE treats `%`, `_` and `\` as pattern characters: an action name matches itself only. */
const escapeLike = (s: string): string => s.replace(/[%_\\]/g, (m) => `\\${m}`);

export async function listAuditLog(db: DbSession, q: AuditFilters): Promise<{ entries: AuditEntry[]; nextBefore: string | null }> {
  const action = q.action === undefined ? null : q.action.endsWith('.') ? `${escapeLike(q.action)}%` : escapeLike(q.action);
  const rows = await db.sql<Omit<AuditEntry, 'at'> & { at: Date }>(
    `SELECT id::text AS id, at, action, actor_user_id, actor_collector_id, target_type, target_id, ip, user_agent, detail FROM audit_log
     WHERE ($1::text IS NULL OR action LIKE $1) AND ($2::uuid IS NULL OR actor_user_id = $2::uuid)
       AND ($3::text IS NULL OR target_type = $3) AND ($4::text IS NULL OR target_id = $4)
       AND ($5::timestamptz IS NULL OR at >= $5::timestamptz) AND ($6::timestamptz IS NULL OR at <= $6::timestamptz)
       AND ($7::bigint IS NULL OR id < $7::bigint)
       AND ($9::text IS NULL OR detail ->> 'purpose' = $9) AND ($10::text IS NULL OR detail ->> 'case_number' = $10)
       AND ($11::bigint[] IS NULL OR id = ANY($11::bigint[])) AND ($12::boolean IS NOT TRUE OR NOT ${PAGE_VIEW})
     ORDER BY audit_log.id DESC LIMIT $8`,
    [
      action,
      q.actor_user_id ?? null,
      q.target_type ?? null,
      q.target_id ?? null,
      q.since ?? null,
      q.until ?? null,
      q.before ?? null,
      q.limit + 1,
      q.purpose ?? null,
      q.case_number ?? null,
      q.ids ? [...q.ids] : null,
      q.page_views === 'exclude',
    ],
  );
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return { entries: page.map((r) => ({ ...r, at: new Date(r.at).toISOString() })), nextBefore: more ? (page.at(-1)?.id ?? null) : null };
}
