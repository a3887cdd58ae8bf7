import { ADMIN_ALERT_CHECKS_FAILED_PATH, ADMIN_ALERT_CHECKS_REQUEUE_FAILED_PATH, ADMIN_ALERT_CHECK_REQUEUE_ROUTE } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import type { PlatformDeps } from '../platform/deps.ts';
import { listFailedAlertChecks, requeueFailedAlertChecks } from '../alerts/failed-checks.ts';
import { validJson, validParam } from '../platform/http/validator.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { emptyBodySchema } from '../platform/http/validator.ts';

/**
 * Alert checks that failed for good, for admins (docs/alerts.md "Failed checks"): the list with
 * each one's error, and requeue, one or all. Each may be a watchlist hit nobody saw.
 */
export function adminAlertCheckRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const actor = (c: { get(key: 'user'): { id: string } }) => ({ userId: c.get('user').id });

  app.get(ADMIN_ALERT_CHECKS_FAILED_PATH, guards.read, audited(deps, 'admin.alert_check.list'), async (c) => {
    const { items, total } = await listFailedAlertChecks(deps.db);
    noteAudit(c, { detail: { count: items.length, total } });
    return c.json({ data: items, total });
  });

  app.post(
    ADMIN_ALERT_CHECK_REQUEUE_ROUTE,
    guards.post,
    audited(deps, 'admin.alert_check.requeue'),
    validParam(z.object({ id: z.string() })),
    ...validJson(emptyBodySchema),
    async (c) => {
      const done = await requeueFailedAlertChecks(deps, actor(c), { id: c.req.valid('param').id });
      return c.json({ requeued: done.requeued });
    },
  );

  app.post(ADMIN_ALERT_CHECKS_REQUEUE_FAILED_PATH, guards.post, audited(deps, 'admin.alert_check.requeue'), ...validJson(emptyBodySchema), async (c) => {
    const done = await requeueFailedAlertChecks(deps, actor(c), { all: true });
    noteAudit(c, { detail: { requeued: done.requeued } });
    return c.json({ requeued: done.requeued });
  });

  return app;
}
