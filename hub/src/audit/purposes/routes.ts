import { ADMIN_PURPOSES_PATH, PURPOSES_PATH, adminPurposeActionRoute } from '../../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AuthContext } from '../../auth/context.ts';
import { requireUser, type AuthEnv } from '../../auth/middleware.ts';
import { audited, noteAudit, type AdminEnv } from '../middleware.ts';
import type { AdminGuards } from '../../auth/guards.ts';
import { validJson, validParam } from '../../platform/http/validator.ts';
import { createPurposeSchema, purposeCodeSchema } from './schema.ts';
import { createPurpose, listPurposes, setPurposeActive } from './store.ts';

/**
 * `GET /api/v1/purposes` (docs/search.md "Purposes"): the active purposes a lookup may
 * name, for every signed-in user (the dashboard's purpose selects are filled from it).
 */
export function purposeRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get(PURPOSES_PATH, requireUser(deps), async (c) => c.json({ data: await listPurposes(deps.db, { includeRetired: false }) }));
  return app;
}

const codeParam = validParam(z.object({ code: purposeCodeSchema }));

/**
 * The admins' list of purposes (docs/admin-api.md "Purposes"): list (retired ones too),
 * create, retire, reactivate. Never delete: audit rows name purposes by code. Each request
 * is audited like every admin request (`admin.purpose.*`).
 */
export function adminPurposeRoutes(deps: AuthContext, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.get(ADMIN_PURPOSES_PATH, guards.read, audited(deps, 'admin.purpose.list'), async (c) => {
    const data = await listPurposes(deps.db, { includeRetired: true });
    noteAudit(c, { detail: { count: data.length } });
    return c.json({ data });
  });
  app.post(ADMIN_PURPOSES_PATH, guards.post, audited(deps, 'admin.purpose.create'), ...validJson(createPurposeSchema), async (c) => {
    const created = await createPurpose({ db: deps.db, now: deps.clock.now() }, c.get('user').id, c.req.valid('json'));
    noteAudit(c, { targetId: created.code, detail: { label: created.label, case_number_required: created.case_number_required } });
    return c.json(created, 201);
  });
  for (const [verb, active] of [
    ['retire', false],
    ['reactivate', true],
  ] as const) {
    app.post(adminPurposeActionRoute(verb), guards.post, audited(deps, `admin.purpose.${verb}`), codeParam, async (c) => {
      const { code } = c.req.valid('param');
      return c.json(await setPurposeActive({ db: deps.db, now: deps.clock.now() }, c.get('user').id, code, active));
    });
  }
  return app;
}
