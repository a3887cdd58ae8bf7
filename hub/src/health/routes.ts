import { ADMIN_HEALTH_ALERTS_PATH } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AdminEnv } from '../audit/middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import { validQuery } from '../platform/http/validator.ts';
import { listHealthAlerts } from './present.ts';
import { UUID_PATTERN } from '@alpr/shared/validation/uuid';

export const healthAlertQuerySchema = z
  .object({
    state: z.enum(['open', 'closed', 'all']).default('all'),
    collector_id: z.string().regex(UUID_PATTERN, 'must be a collector id (uuid)').optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    // A bigint id: digits only, at most 18 so it always fits.
    before: z
      .string()
      .regex(/^[1-9][0-9]{0,17}$/, 'must be a health alert id')
      .optional(),
  })
  .strict();

/**
 * Health alerts for admins (docs/admin-api.md "Health alerts"): open, closed or all, newest
 * first, paged with `before`. Read-only, like the other admin lists.
 */
export function healthAlertRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.get(ADMIN_HEALTH_ALERTS_PATH, guards.read, validQuery(healthAlertQuerySchema), async (c) => {
    const q = c.req.valid('query');
    return c.json(await listHealthAlerts(deps.db, { state: q.state, collectorId: q.collector_id, limit: q.limit, before: q.before }));
  });
  return app;
}
