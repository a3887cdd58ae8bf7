import { ADMIN_USERS_PATH, ADMIN_USER_ROUTE, adminUserActionRoute } from '../platform/http/paths.ts';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import {
  createAccount,
  endAccountSessions,
  getAccount,
  listAccounts,
  resetAccountPassword,
  resetAccountTwoFactor,
  setAccountActive,
  setAccountRole,
} from '../auth/account-admin.ts';
import { emailSchema } from '../auth/registration.ts';
import type { UserRow } from '../auth/users.ts';
import { userRoleSchema } from '../db/schema/users.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import { idParam, validJson } from '../platform/http/validator.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { emptyBodySchema } from '../platform/http/validator.ts';

const createUserBodySchema = z.object({ email: emailSchema, role: userRoleSchema }).strict();
const roleBodySchema = z.object({ role: userRoleSchema }).strict();

/** A user as the admin API shows it: never the hash, never 2FA material. */
export function presentUser(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    is_active: u.isActive,
    twofa_required: u.twofaRequired,
    twofa_enrolled: u.twofaEnrolled,
    twofa_enrolled_at: u.twofaEnrolledAt?.toISOString() ?? null,
    must_change_password: u.mustChangePassword,
    sessions_valid_after: u.sessionsValidAfter?.toISOString() ?? null,
    created_at: u.createdAt.toISOString(),
  };
}

/**
 * Users managed over HTTP by admins (issue 10 section 5; docs/admin-api.md "Users"). Every
 * POST is the admin POST (30/min per user, CSRF, audited); those that hand out a password
 * or take a second factor away need a second factor proven within 5 minutes, like key
 * operations.
 */
export function adminUserRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const actorOf = (c: Context<AdminEnv>) => ({ userId: c.get('user').id });

  app.get(ADMIN_USERS_PATH, guards.read, audited(deps, 'admin.user.list'), async (c) => {
    const rows = await listAccounts(deps);
    noteAudit(c, { detail: { count: rows.length } });
    return c.json({ data: rows.map(presentUser) });
  });

  app.get(ADMIN_USER_ROUTE, guards.read, audited(deps, 'admin.user.read'), idParam, async (c) => {
    return c.json(presentUser(await getAccount(deps, c.req.valid('param').id)));
  });

  app.post(ADMIN_USERS_PATH, guards.keyPost, audited(deps, 'admin.user.create'), ...validJson(createUserBodySchema), async (c) => {
    const { user, oneTimePassword } = await createAccount(deps, actorOf(c), c.req.valid('json'));
    c.header('Cache-Control', 'no-store');
    noteAudit(c, { targetId: user.id, detail: { email: user.email, role: user.role } });
    return c.json({ ...presentUser(user), one_time_password: oneTimePassword }, 201);
  });

  app.post(adminUserActionRoute('role'), guards.post, audited(deps, 'admin.user.role'), idParam, ...validJson(roleBodySchema), async (c) => {
    const { role } = c.req.valid('json');
    const user = await setAccountRole(deps, actorOf(c), c.req.valid('param').id, role);
    noteAudit(c, { detail: { role } });
    return c.json(presentUser(user));
  });

  for (const [path, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    app.post(
      adminUserActionRoute(path),
      guards.post,
      audited(deps, active ? 'admin.user.activate' : 'admin.user.deactivate'),
      idParam,
      ...validJson(emptyBodySchema),
      async (c) => c.json(presentUser(await setAccountActive(deps, actorOf(c), c.req.valid('param').id, active))),
    );
  }

  app.post(adminUserActionRoute('reset-2fa'), guards.keyPost, audited(deps, 'admin.user.reset_2fa'), idParam, ...validJson(emptyBodySchema), async (c) =>
    c.json(presentUser(await resetAccountTwoFactor(deps, actorOf(c), c.req.valid('param').id))),
  );

  app.post(
    adminUserActionRoute('reset-password'),
    guards.keyPost,
    audited(deps, 'admin.user.reset_password'),
    idParam,
    ...validJson(emptyBodySchema),
    async (c) => {
      const { user, oneTimePassword } = await resetAccountPassword(deps, actorOf(c), c.req.valid('param').id);
      c.header('Cache-Control', 'no-store');
      return c.json({ ...presentUser(user), one_time_password: oneTimePassword });
    },
  );

  app.post(adminUserActionRoute('end-sessions'), guards.post, audited(deps, 'admin.user.end_sessions'), idParam, ...validJson(emptyBodySchema), async (c) =>
    c.json(presentUser(await endAccountSessions(deps, actorOf(c), c.req.valid('param').id))),
  );

  return app;
}
