import { ADMIN_WEBHOOKS_PATH, ADMIN_WEBHOOK_ROUTE, adminWebhookActionRoute } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import type { PlatformDeps } from '../platform/deps.ts';
import { idParam, validJson } from '../platform/http/validator.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { emptyBodySchema } from '../platform/http/validator.ts';
import { enqueueTestEvent } from './enqueue.ts';
import { createWebhookSchema, editWebhookSchema } from './schema.ts';
import { createTarget, editTarget, getTarget, listTargets, presentTarget, recentDeliveries, removeTarget, rotateSecret } from './targets.ts';

/**
 * Webhook targets (docs/admin-api.md "Webhooks", docs/webhooks.md). The secret is in the
 * answer to create and rotate-secret only; audit rows carry the target id, never the secret.
 */
export function adminWebhookRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.get(ADMIN_WEBHOOKS_PATH, guards.read, audited(deps, 'admin.webhook.list'), async (c) => {
    const data = (await listTargets(deps.db)).map((t) => presentTarget(t.row, { pending: t.pending, failed: t.failed }));
    noteAudit(c, { detail: { count: data.length } });
    return c.json({ data });
  });

  app.post(ADMIN_WEBHOOKS_PATH, guards.post, audited(deps, 'admin.webhook.create'), ...validJson(createWebhookSchema), async (c) => {
    const { row, secret } = await createTarget(deps, c.req.valid('json'));
    noteAudit(c, { targetId: row.id, detail: { events: row.events } });
    return c.json({ webhook: presentTarget(row), secret }, 201);
  });

  app.get(ADMIN_WEBHOOK_ROUTE, guards.read, audited(deps, 'admin.webhook.read'), idParam, async (c) => {
    const id = c.req.valid('param').id;
    const row = await getTarget(deps.db, id);
    return c.json({ webhook: presentTarget(row), deliveries: await recentDeliveries(deps.db, id) });
  });

  app.patch(ADMIN_WEBHOOK_ROUTE, guards.post, audited(deps, 'admin.webhook.edit'), idParam, ...validJson(editWebhookSchema), async (c) => {
    const body = c.req.valid('json');
    const row = await editTarget(deps, c.req.valid('param').id, body);
    noteAudit(c, { detail: { fields: Object.keys(body) } });
    return c.json({ webhook: presentTarget(row) });
  });

  app.delete(ADMIN_WEBHOOK_ROUTE, guards.delete, audited(deps, 'admin.webhook.remove'), idParam, ...validJson(emptyBodySchema), async (c) => {
    await removeTarget(deps, c.req.valid('param').id);
    return c.body(null, 204);
  });

  app.post(adminWebhookActionRoute('test'), guards.post, audited(deps, 'admin.webhook.test'), idParam, async (c) => {
    const { messageId } = await enqueueTestEvent(deps, c.req.valid('param').id);
    noteAudit(c, { detail: { message_id: messageId } });
    return c.json({ message_id: messageId }, 202);
  });

  app.post(adminWebhookActionRoute('rotate-secret'), guards.keyPost, audited(deps, 'admin.webhook.rotate_secret'), idParam, async (c) => {
    const { row, secret } = await rotateSecret(deps, c.req.valid('param').id);
    return c.json({ webhook: presentTarget(row), secret });
  });

  return app;
}
