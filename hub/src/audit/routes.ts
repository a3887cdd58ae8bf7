import { ADMIN_AUDIT_PATH } from '../platform/http/paths.ts';
import { bigintId, isBigintId, isoTime } from '@alpr/shared/validation/params';
import { Hono } from 'hono';
import { z } from 'zod';
import type { PlatformDeps } from '../platform/deps.ts';
import { validQuery } from '../platform/http/validator.ts';
import { AUDIT_IDS_MAX } from './ids-limit.ts';
import { listAuditLog } from './list.ts';
import { caseNumberSchema, purposeCodeSchema } from './purposes/schema.ts';
import { audited, noteAudit, type AdminEnv } from './middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';

const query = z
  .object({
    action: z
      .string()
      .regex(/^[a-z0-9_.]{1,80}$/, 'an action or its prefix, e.g. search. or legal_hold.place')
      .optional(),
    actor_user_id: z.string().uuid().optional(),
    target_type: z.string().max(40).optional(),
    target_id: z.string().max(200).optional(),
    purpose: purposeCodeSchema.optional(),
    case_number: caseNumberSchema.optional(),
    since: isoTime.optional(),
    until: isoTime.optional(),
    before: bigintId.optional(),
    ids: z
      .string()
      .max(AUDIT_IDS_MAX * 20)
      .refine((s) => {
        const ids = s.split(',');
        return ids.length <= AUDIT_IDS_MAX && ids.every(isBigintId);
      }, `up to ${AUDIT_IDS_MAX} audit row ids, comma-separated`)
      .optional(),
    page_views: z.enum(['include', 'exclude']).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

/**
 * `GET /api/v1/admin/audit` (docs/admin-api.md "Audit log"): the write-once audit log,
 * newest first, filtered; an `action` ending in `.` matches every action under it,
 * `purpose`/`case_number` pick the lookups made for one, `ids` names rows (an audit-review
 * flag's), and `page_views=exclude` leaves out the admin pages' reads (audit/list.ts). Reading it is itself audited
 * (`admin.audit.read`).
 */
export function adminAuditRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.get(ADMIN_AUDIT_PATH, guards.read, audited(deps, 'admin.audit.read'), validQuery(query), async (c) => {
    const q = c.req.valid('query');
    const { entries, nextBefore } = await listAuditLog(deps.db, { ...q, ids: q.ids?.split(',') });
    noteAudit(c, { detail: { filters: Object.keys(q).filter((k) => k !== 'limit'), count: entries.length } });
    return c.json({ data: entries, next_before: nextBefore });
  });
  return app;
}
