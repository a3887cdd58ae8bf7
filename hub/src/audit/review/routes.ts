import { ADMIN_AUDIT_REVIEW_PATH } from '../../platform/http/paths.ts';
import { isoTime } from '@alpr/shared/validation/params';
import { Hono } from 'hono';
import { z } from 'zod';
import { audited, noteAudit, type AdminEnv } from '../middleware.ts';
import type { AdminGuards } from '../../auth/guards.ts';
import type { PlatformDeps } from '../../platform/deps.ts';
import { HubError } from '../../platform/errors.ts';
import { validQuery } from '../../platform/http/validator.ts';
import { lookupsByPurpose } from './by-purpose.ts';
import { RULES, reviewFlags, type Lookup } from './flags.ts';
import { loadLookups, loadReviewContext, loadUserNames } from './load.ts';

const DAY_MS = 86_400_000;
/** The default span reviewed, and the longest one a request may ask for (a bounded read). */
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
/** Usual hours are learned from this much history before the reviewed span as well. */
const HISTORY_DAYS = 90;

/** An IANA zone name Intl knows (Europe/Berlin, UTC); anything else is refused with a 400. */
const timeZone = z
  .string()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'an IANA time zone, e.g. Europe/Berlin or UTC');

export const auditReviewQuery = z
  .object({
    since: isoTime.optional(),
    until: isoTime.optional(),
    user_id: z.string().uuid().optional(),
    tz: timeZone.default('UTC'),
  })
  .strict();

const rowOut = (l: Lookup) => ({
  audit_id: l.auditId,
  at: l.at.toISOString(),
  action: l.action,
  plate: l.plate,
  purpose: l.purpose,
  case_number: l.caseNumber,
  result_count: l.resultCount,
});

/**
 * `GET /api/v1/admin/audit-review` (docs/audit-review.md): each user's lookups by purpose per
 * week, and the flags worth a second look, each with the audit rows behind it. Reading it is
 * reading the audit log, so it is audited as such.
 */
export function auditReviewRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.get(ADMIN_AUDIT_REVIEW_PATH, guards.read, audited(deps, 'admin.audit.read'), validQuery(auditReviewQuery), async (c) => {
    const q = c.req.valid('query');
    const now = deps.clock.now();
    const until = q.until ? new Date(q.until) : now;
    const since = q.since ? new Date(q.since) : new Date(until.getTime() - DEFAULT_DAYS * DAY_MS);
    if (since >= until) throw new HubError('bad_request', 'since: must be before until');
    if (until.getTime() - since.getTime() > MAX_DAYS * DAY_MS) throw new HubError('bad_request', `since: at most ${MAX_DAYS} days before until`);

    const [history, context] = await Promise.all([
      loadLookups(deps.db, new Date(since.getTime() - HISTORY_DAYS * DAY_MS), until, q.user_id),
      loadReviewContext(deps.db, now),
    ]);
    const reviewed = history.filter((l) => l.at >= since);
    const flags = reviewFlags(reviewed, history, { ...context, timeZone: q.tz });
    const userIds = [...new Set(reviewed.map((l) => l.userId))];
    const names = await loadUserNames(deps.db, userIds);
    const byId = new Map(reviewed.map((l) => [l.auditId, l]));
    noteAudit(c, { detail: { view: 'review', since: since.toISOString(), until: until.toISOString(), flags: flags.length } });
    return c.json({
      since: since.toISOString(),
      until: until.toISOString(),
      time_zone: q.tz,
      rules: RULES,
      users: userIds.map((id) => ({ user_id: id, email: names.get(id) ?? null, lookups: reviewed.filter((l) => l.userId === id).length })),
      by_purpose: lookupsByPurpose(reviewed).map((r) => ({ user_id: r.userId, week: r.week, purpose: r.purpose, count: r.count })),
      flags: flags.map((f) => ({
        kind: f.kind,
        user_id: f.userId,
        email: names.get(f.userId) ?? null,
        from: f.from.toISOString(),
        to: f.to.toISOString(),
        plate: f.plate,
        message: f.message,
        audit_ids: f.auditIds,
        rows: f.auditIds.flatMap((id) => {
          const l = byId.get(id);
          return l ? [rowOut(l)] : [];
        }),
      })),
    });
  });
  return app;
}
