import { bigintId, isoTime } from '@alpr/shared/validation/params';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AuthEnv } from '../auth/middleware.ts';
import type { HubDeps } from '../deps.ts';
import { parseQuery } from '../http/validate.ts';
import { audited } from './audit.ts';
import type { AdminGuards } from './guards.ts';

const query = z
  .object({
    action: z.string().regex(/^[a-z0-9_.]{1,80}$/, 'an action or its prefix, e.g. search. or legal_hold.place').optional(),
    actor_user_id: z.string().uuid().optional(),
    target_type: z.string().max(40).optional(),
    target_id: z.string().max(200).optional(),
    since: isoTime.optional(),
    until: isoTime.optional(),
    before: bigintId.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

/**
 * `GET /api/v1/admin/audit` (docs/admin-api.md "Audit log"): the write-once audit log,
 * newest first, filtered; an `action` ending in `.` matches every action under it. Reading
 * it is itself audited (`admin.audit.read`).
 */
export function adminAuditRoutes(deps: HubDeps, guards: AdminGuards): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get('/api/v1/admin/audit', guards.read, audited(deps, 'admin.audit.read', async (c) => {
    const q = parseQuery(query, c.req.query());
    const action = q.action === undefined ? null : q.action.endsWith('.') ? `${q.action.replace(/[%_\\]/g, (m) => `\\${m}`)}%` : q.action.replace(/[%_\\]/g, (m) => `\\${m}`);
    const rows = await deps.db.sql<{ id: string; at: Date; action: string; actor_user_id: string | null; actor_collector_id: string | null; target_type: string | null; target_id: string | null; ip: string | null; user_agent: string | null; detail: Record<string, unknown> }>(
      `SELECT id::text AS id, at, action, actor_user_id, actor_collector_id, target_type, target_id, ip, user_agent, detail FROM audit_log
       WHERE ($1::text IS NULL OR action LIKE $1) AND ($2::uuid IS NULL OR actor_user_id = $2::uuid)
         AND ($3::text IS NULL OR target_type = $3) AND ($4::text IS NULL OR target_id = $4)
         AND ($5::timestamptz IS NULL OR at >= $5::timestamptz) AND ($6::timestamptz IS NULL OR at <= $6::timestamptz)
         AND ($7::bigint IS NULL OR id < $7::bigint)
       ORDER BY audit_log.id DESC LIMIT $8`,
      [action, q.actor_user_id ?? null, q.target_type ?? null, q.target_id ?? null, q.since ?? null, q.until ?? null, q.before ?? null, q.limit + 1],
    );
    const more = rows.length > q.limit;
    const page = more ? rows.slice(0, q.limit) : rows;
    return {
      response: c.json({
        data: page.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
        next_before: more ? (page.at(-1)?.id ?? null) : null,
      }),
      detail: { filters: Object.keys(q).filter((k) => k !== 'limit'), count: page.length },
    };
  }));
  return app;
}
