import { Hono } from 'hono';
import type { AuthEnv } from '../auth/middleware.ts';
import type { HubDeps } from '../deps.ts';
import { deactivateKey } from '../collectors/deactivate-key.ts';
import { listKeys } from '../collectors/list-keys.ts';
import { revokeKey } from '../collectors/revoke-key.ts';
import { rotateKey } from '../collectors/rotate-key.ts';
import { collectorStatus } from '../collectors/status.ts';
import { audited, type AuditedHandler } from './audit.ts';
import { pathParam, readJsonBody } from '../http/json-body.ts';
import type { AdminGuards } from './guards.ts';
import { presentKey } from './present.ts';
import { DEFAULT_DELETE_REASON, deleteKeyBodySchema, revokeKeyBodySchema, rotateKeyBodySchema } from './schema.ts';

/**
 * API key administration (docs/collectors.md): rotate, revoke, list. Rotation and
 * revocation need a second factor proven within 5 minutes (docs/protocol.md).
 */
export function adminKeyRoutes(deps: HubDeps, guards: AdminGuards): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  const rotate: AuditedHandler = async (c) => {
    const body = await readJsonBody(c, rotateKeyBodySchema);
    const rotated = await rotateKey(deps, { userId: c.get('user').id }, { collectorId: pathParam(c, 'id'), gracePeriodHours: body.grace_period_hours });
    // The key exists in clear only in this response; `no-store` keeps it out of caches.
    c.header('Cache-Control', 'no-store');
    return {
      response: c.json(rotated),
      detail: { new_key_id: rotated.new_key_id, new_key_prefix: rotated.new_key_prefix, grace_period_hours: body.grace_period_hours },
    };
  };
  // The collector-scoped path, and the same verb under /admin beside the other admin routes.
  app.post('/api/v1/collectors/:id/rotate-key', guards.keyPost, audited(deps, 'admin.collector.rotate_key', rotate));
  app.post('/api/v1/admin/collectors/:id/rotate-key', guards.keyPost, audited(deps, 'admin.collector.rotate_key', rotate));

  const revoke = async (c: Parameters<AuditedHandler>[0], reason: string) => {
    const revoked = await revokeKey(deps, { userId: c.get('user').id }, { keyId: pathParam(c, 'keyId'), reason });
    const response = c.json({
      key_id: revoked.keyId,
      key_prefix: revoked.keyPrefix,
      collector_id: revoked.collectorId,
      status: 'revoked',
      revoked_at: revoked.revokedAt.toISOString(),
    });
    return { response, detail: { key_prefix: revoked.keyPrefix, collector_id: revoked.collectorId, reason } };
  };
  app.post(
    '/api/v1/admin/keys/:keyId/revoke',
    guards.keyPost,
    audited(deps, 'admin.key.revoke', async (c) => {
      return revoke(c, (await readJsonBody(c, revokeKeyBodySchema)).reason);
    }),
  );
  app.delete(
    '/api/v1/admin/keys/:keyId',
    guards.keyDelete,
    audited(deps, 'admin.key.revoke', async (c) => {
      return revoke(c, (await readJsonBody(c, deleteKeyBodySchema)).reason ?? DEFAULT_DELETE_REASON);
    }),
  );

  // Early end of a rotation's grace period, once the collector has used its new key.
  app.post(
    '/api/v1/admin/keys/:keyId/deactivate',
    guards.keyPost,
    audited(deps, 'admin.key.deactivate', async (c) => {
      const done = await deactivateKey(deps, { userId: c.get('user').id }, pathParam(c, 'keyId'));
      const response = c.json({
        key_id: done.keyId,
        key_prefix: done.keyPrefix,
        collector_id: done.collectorId,
        status: 'inactive',
        proven_by: { key_id: done.provenBy.keyId, key_prefix: done.provenBy.keyPrefix, last_used_at: done.provenBy.lastUsedAt },
      });
      return { response, detail: { key_prefix: done.keyPrefix, collector_id: done.collectorId } };
    }),
  );

  // Listing shows prefixes only, so it needs no fresh second factor.
  app.get(
    '/api/v1/admin/collectors/:id/keys',
    guards.read,
    audited(deps, 'admin.collector.keys_list', async (c) => {
      const id = pathParam(c, 'id');
      // listKeys alone answers [] for an unknown collector; the admin should hear 404.
      await collectorStatus(deps, id);
      const keys = await listKeys(deps, id);
      return { response: c.json({ data: keys.map(presentKey) }), detail: { count: keys.length } };
    }),
  );

  return app;
}
