import { LEGAL_HOLDS_PATH, LEGAL_HOLDS_RELEASE_PATH } from '../platform/http/paths.ts';
import { bigintId, isoTimeAsDate } from '@alpr/shared/validation/params';
import { Hono } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { safeText } from '@alpr/shared/text/hostile-text';
import type { AuthContext } from '../auth/context.ts';
import { requestMeta } from '../auth/request.ts';
import { requestScope } from '../sites/request-scope.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { validJson, validQuery } from '../platform/http/validator.ts';
import { listHolds, placeHold, releaseHold } from './holds.ts';

/** A JSON array at the body edge holds at most 1,000 items (docs/security.md); a plate and range reach 10,000. */
const MAX_IDS_PER_REQUEST = 1_000;

const caseId = safeText(z.string().trim().min(1).max(100));
const reason = safeText(z.string().trim().min(3).max(1000));
const time = isoTimeAsDate;

const placeSchema = z
  .object({
    detection_ids: z.array(bigintId).min(1).max(MAX_IDS_PER_REQUEST).optional(),
    plate: safeText(z.string().min(1).max(40)).optional(),
    start_date: time.optional(),
    end_date: time.optional(),
    case_id: caseId,
    reason,
    hold_until: time.nullable().optional(),
  })
  .strict()
  .refine((b) => (b.detection_ids !== undefined) !== (b.plate !== undefined), 'give detection_ids, or plate with start_date and end_date')
  .refine(
    (b) => b.plate === undefined || (b.start_date !== undefined && b.end_date !== undefined && b.start_date <= b.end_date),
    'a plate needs start_date and end_date (in order)',
  );

const releaseSchema = z.object({ case_id: caseId, reason, hold_ids: z.array(bigintId).min(1).max(MAX_IDS_PER_REQUEST).optional() }).strict();
const listSchema = z
  .object({
    case_id: caseId.optional(),
    active: z.enum(['true', 'false']).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    after: bigintId.optional(),
  })
  .strict();

/**
 * Legal holds (docs/legal-hold.md): operators and admins place and release, everyone signed
 * in reads; every change audited in its transaction; writes share the admin limit (30 a
 * minute per user).
 */
export function legalHoldRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const write = every(requireUser(deps, { roles: ['operator', 'admin'] }), rateLimit(deps, RATE_LIMITS.admin));
  app.post(LEGAL_HOLDS_PATH, write, ...validJson(placeSchema), async (c) => {
    const b = c.req.valid('json');
    const target = b.detection_ids ? { detectionIds: b.detection_ids } : { plate: b.plate as string, start: b.start_date as Date, end: b.end_date as Date };
    const result = await placeHold(
      deps,
      { userId: c.get('user').id, ...requestMeta(c) },
      { target, caseId: b.case_id, reason: b.reason, holdUntil: b.hold_until ?? null },
      await requestScope(deps.db, c),
    );
    return c.json(result, 201);
  });
  app.post(LEGAL_HOLDS_RELEASE_PATH, write, ...validJson(releaseSchema), async (c) => {
    const b = c.req.valid('json');
    return c.json(await releaseHold(deps, { userId: c.get('user').id, ...requestMeta(c) }, b.case_id, b.reason, b.hold_ids, await requestScope(deps.db, c)));
  });
  app.get(LEGAL_HOLDS_PATH, requireUser(deps), validQuery(listSchema), async (c) => {
    const q = c.req.valid('query');
    return c.json(
      await listHolds(
        deps.db,
        { caseId: q.case_id, active: q.active === undefined ? undefined : q.active === 'true', limit: q.limit, afterId: q.after },
        await requestScope(deps.db, c),
      ),
    );
  });
  return app;
}
