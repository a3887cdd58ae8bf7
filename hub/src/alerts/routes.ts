import { ALERTS_PATH, ALERT_ROUTE, alertActionRoute, type AlertAction } from '../platform/http/paths.ts';
import { isoTime } from '@alpr/shared/validation/params';
import { Hono } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { safeText } from '@alpr/shared/text/hostile-text';
import { linkSigner } from '../platform/signed-links/link-signer.ts';
import type { AuthContext } from '../auth/context.ts';
import { requestMeta } from '../auth/request.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { alertStateSchema, alertVerdictSchema, alertVerifications } from '../db/schema/alerts.ts';
import { idParam, validJson, validQuery } from '../platform/http/validator.ts';
import { handleAlert, type AlertHandling } from './handle.ts';
import { alertForUser, DEFAULT_ALERT_PAGE, listAlertsForUser, MAX_ALERT_PAGE, requireAlertInScope } from './list.ts';
import { requestScope } from '../sites/request-scope.ts';
import { alertRecord } from './payload.ts';
import { verifyAlert } from './verify.ts';

/** A `since` older than this is clamped: the list is for catching up, search is for history. */
const MAX_SINCE_DAYS = 30;

const listQuerySchema = z
  .object({
    since: isoTime.optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_ALERT_PAGE).default(DEFAULT_ALERT_PAGE),
    state: alertStateSchema.optional(),
    watchlist_id: z.string().uuid().optional(),
    verification: z.enum(alertVerifications).optional(),
  })
  .strict();

const handleBodySchema = z.object({ note: safeText(z.string().max(500)).optional() }).strict();

/** 1,000 characters: room for what the crop showed and why, not for pasted documents. */
export const MAX_VERIFICATION_NOTE = 1000;
const verifyBodySchema = z
  .object({
    verification: alertVerdictSchema,
    note: safeText(z.string().trim().max(MAX_VERIFICATION_NOTE)).optional(),
  })
  .strict()
  // A misread is the figure the reports page counts against a camera: say what was wrong.
  .refine((b) => b.verification !== 'misread' || (b.note ?? '') !== '', { message: 'a misread needs a note: what the crop shows', path: ['note'] });

/**
 * Alerts for the signed-in user (docs/alerts.md): the catch-up list for a client that was
 * disconnected, acknowledge/dismiss, and verification (confirmed or misread). Viewers read
 * their alerts; operators and admins also handle and verify them.
 */
export function alertRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const anyUser = requireUser(deps);
  const handler = every(requireUser(deps, { roles: ['operator', 'admin'] }), rateLimit(deps, RATE_LIMITS.watchlist));

  app.get(ALERTS_PATH, anyUser, validQuery(listQuerySchema), async (c) => {
    const query = c.req.valid('query');
    const now = deps.clock.now();
    const floor = new Date(now.getTime() - MAX_SINCE_DAYS * 86_400_000);
    const asked = query.since ? new Date(query.since) : new Date(now.getTime() - 86_400_000);
    const since = asked < floor ? floor : asked;
    const page = await listAlertsForUser(
      deps.db,
      c.get('user').id,
      {
        since,
        cursor: query.cursor,
        limit: query.limit,
        state: query.state,
        watchlistId: query.watchlist_id,
        verification: query.verification,
      },
      await requestScope(deps.db, c),
    );
    const signer = linkSigner(deps.config, now);
    return c.json({ data: page.rows.map((r) => alertRecord(r, signer)), next_cursor: page.nextCursor, since: since.toISOString() });
  });

  app.get(ALERT_ROUTE, anyUser, idParam, async (c) => {
    const row = await alertForUser(deps.db, c.get('user').id, c.req.valid('param').id, await requestScope(deps.db, c));
    return c.json(alertRecord(row, linkSigner(deps.config, deps.clock.now())));
  });

  const routes: Array<[action: AlertAction, to: AlertHandling]> = [
    ['acknowledge', 'acknowledged'],
    ['dismiss', 'dismissed'],
  ];
  for (const [action, to] of routes) {
    app.post(alertActionRoute(action), handler, idParam, ...validJson(handleBodySchema), async (c) => {
      const { id } = c.req.valid('param');
      await requireAlertInScope(deps.db, id, await requestScope(deps.db, c));
      const done = await handleAlert(deps, { userId: c.get('user').id, ...requestMeta(c) }, id, to, c.req.valid('json').note ?? null);
      return c.json({ alert_id: id, state: done.state, handled_by: c.get('user').id, handled_at: done.handledAt.toISOString() });
    });
  }

  app.post(alertActionRoute('verify'), handler, idParam, ...validJson(verifyBodySchema), async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    await requireAlertInScope(deps.db, id, await requestScope(deps.db, c));
    const done = await verifyAlert(deps, { userId: c.get('user').id, ...requestMeta(c) }, id, body.verification, body.note || null);
    return c.json({
      alert_id: id,
      verification: done.verification,
      verified_by: done.verifiedBy,
      verified_by_email: c.get('user').email,
      verified_at: done.verifiedAt.toISOString(),
      note: done.note,
    });
  });
  return app;
}
