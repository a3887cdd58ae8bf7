import { ADMIN_KEY_ROUTE, COLLECTOR_ROTATE_KEY_ROUTE, adminCollectorPartRoute, adminKeyActionRoute } from '../platform/http/paths.ts';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { PlatformDeps } from '../platform/deps.ts';
import { deactivateKey } from '../collectors/deactivate-key.ts';
import { listKeys } from '../collectors/list-keys.ts';
import { revokeKey } from '../collectors/revoke-key.ts';
import { rotateKey } from '../collectors/rotate-key.ts';
import { collectorStatus } from '../collectors/status.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import { idParam, validJson, validParam } from '../platform/http/validator.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { presentKey } from './present.ts';
import { DEFAULT_DELETE_REASON, deleteKeyBodySchema, revokeKeyBodySchema, rotateKeyBodySchema } from './schema.ts';

/**
 * API key administration (docs/collectors.md): rotate, revoke, list. Rotation and
 * revocation need a second factor proven within 5 minutes (docs/protocol.md).
 */
export function adminKeyRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const keyIdParam = validParam(z.object({ keyId: z.string() }));

  // The collector-scoped path, and the same verb under /admin beside the other admin routes.
  for (const path of [COLLECTOR_ROTATE_KEY_ROUTE, adminCollectorPartRoute('rotate-key')]) {
    app.post(path, guards.keyPost, audited(deps, 'admin.collector.rotate_key'), idParam, ...validJson(rotateKeyBodySchema), async (c) => {
      const body = c.req.valid('json');
      const rotated = await rotateKey(deps, { userId: c.get('user').id }, { collectorId: c.req.valid('param').id, gracePeriodHours: body.grace_period_hours });
      // The key exists in clear only in this response; `no-store` keeps it out of caches.
      c.header('Cache-Control', 'no-store');
      noteAudit(c, { detail: { new_key_id: rotated.new_key_id, new_key_prefix: rotated.new_key_prefix, grace_period_hours: body.grace_period_hours } });
      return c.json(rotated);
    });
  }

  const revoke = async (c: Context<AdminEnv>, keyId: string, reason: string) => {
    const revoked = await revokeKey(deps, { userId: c.get('user').id }, { keyId, reason });
    noteAudit(c, { detail: { key_prefix: revoked.keyPrefix, collector_id: revoked.collectorId, reason } });
    return c.json({
      key_id: revoked.keyId,
      key_prefix: revoked.keyPrefix,
      collector_id: revoked.collectorId,
      status: 'revoked',
      revoked_at: revoked.revokedAt.toISOString(),
    });
  };
  app.post(adminKeyActionRoute('revoke'), guards.keyPost, audited(deps, 'admin.key.revoke'), keyIdParam, ...validJson(revokeKeyBodySchema), (c) =>
    revoke(c, c.req.valid('param').keyId, c.req.valid('json').reason),
  );
  app.delete(ADMIN_KEY_ROUTE, guards.keyDelete, audited(deps, 'admin.key.revoke'), keyIdParam, ...validJson(deleteKeyBodySchema), (c) =>
    revoke(c, c.req.valid('param').keyId, c.req.valid('json').reason ?? DEFAULT_DELETE_REASON),
  );

  // Early end of a rotation's grace period, once the collector has used its new key.
  app.post(adminKeyActionRoute('deactivate'), guards.keyPost, audited(deps, 'admin.key.deactivate'), keyIdParam, async (c) => {
    const done = await deactivateKey(deps, { userId: c.get('user').id }, c.req.valid('param').keyId);
    noteAudit(c, { detail: { key_prefix: done.keyPrefix, collector_id: done.collectorId } });
    return c.json({
      key_id: done.keyId,
      key_prefix: done.keyPrefix,
      collector_id: done.collectorId,
      status: 'inactive',
      proven_by: { key_id: done.provenBy.keyId, key_prefix: done.provenBy.keyPrefix, last_used_at: done.provenBy.lastUsedAt },
    });
  });

  // Listing shows prefixes only, so it needs no fresh second factor.
  app.get(adminCollectorPartRoute('keys'), guards.read, audited(deps, 'admin.collector.keys_list'), idParam, async (c) => {
    const { id } = c.req.valid('param');
    // listKeys alone answers [] for an unknown collector; the admin should hear 404.
    await collectorStatus(deps, id);
    const keys = await listKeys(deps, id);
    noteAudit(c, { detail: { count: keys.length } });
    return c.json({ data: keys.map(presentKey) });
  });

  return app;
}
