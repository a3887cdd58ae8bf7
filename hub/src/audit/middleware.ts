import type { Context, MiddlewareHandler } from 'hono';
import { writeAudit } from '../platform/audit-writer.ts';
import { clientIp } from '../platform/http/client-ip.ts';
import type { AuthContext } from '../auth/context.ts';
import type { AuthEnv } from '../auth/middleware.ts';
import { HubError } from '../platform/errors.ts';

/**
 * One audit row per admin request: who (the session user), what (action, target, outcome),
 * when (the injected clock) and from where (socket address, user agent). The verbs write
 * their own `collector.*` rows inside their transactions, but their `Actor` carries no
 * address; this row adds it, and also records reads and refused attempts (404, 409, 400)
 * that leave no trace in the verbs. Written after the verb commits, outside its
 * transaction: if it fails the change stands, the failure is logged at error, and the
 * response is still sent (a rotated key that is never shown would be worse than a
 * missing row).
 */
export const ADMIN_ACTIONS = {
  'admin.collector.create': 'collector',
  'admin.collector.list': 'collector',
  'admin.collector.read': 'collector',
  'admin.collector.provisioning_token': 'collector',
  'admin.collector.rotate_key': 'collector',
  'admin.collector.keys_list': 'collector',
  'admin.collector.commands': 'collector',
  'admin.collector.decommission': 'collector',
  'admin.collector.config': 'collector',
  'admin.collector.wipe': 'collector',
  'admin.key.revoke': 'api_key',
  'admin.key.deactivate': 'api_key',
  'admin.collector.claim_code': 'collector',
  'admin.collector.suspend': 'collector',
  'admin.collector.resume': 'collector',
  'admin.collector.replace': 'collector',
  'admin.collector.replace_cancel': 'collector',
  'admin.camera.list': 'collector',
  'admin.alert_check.list': 'alert_check',
  'admin.alert_check.requeue': 'alert_check',
  'admin.camera.add': 'camera',
  'admin.camera.edit': 'camera',
  'admin.camera.remove': 'camera',
  'admin.user.list': 'user',
  'admin.user.read': 'user',
  'admin.user.create': 'user',
  'admin.user.role': 'user',
  'admin.user.activate': 'user',
  'admin.user.deactivate': 'user',
  'admin.user.reset_2fa': 'user',
  'admin.user.reset_password': 'user',
  'admin.user.end_sessions': 'user',
  'admin.audit.read': 'audit_log',
  'admin.purpose.list': 'purpose',
  'admin.purpose.create': 'purpose',
  'admin.purpose.retire': 'purpose',
  'admin.purpose.reactivate': 'purpose',
  'admin.hub_certificate.read': 'hub_certificate',
  'admin.hub_certificate.announce': 'hub_certificate',
  'admin.webhook.list': 'webhook',
  'admin.webhook.create': 'webhook',
  'admin.webhook.read': 'webhook',
  'admin.webhook.edit': 'webhook',
  'admin.webhook.remove': 'webhook',
  'admin.webhook.test': 'webhook',
  'admin.webhook.rotate_secret': 'webhook',
  'admin.site.list': 'site',
  'admin.site.create': 'site',
  'admin.site.read': 'site',
  'admin.site.edit': 'site',
  'admin.site.remove': 'site',
  'admin.site_group.list': 'site_group',
  'admin.site_group.create': 'site_group',
  'admin.site_group.read': 'site_group',
  'admin.site_group.edit': 'site_group',
  'admin.site_group.remove': 'site_group',
  'admin.collector.site': 'collector',
  'admin.user.sites_read': 'user',
  'admin.user.sites': 'user',
} as const;
export type AdminAction = keyof typeof ADMIN_ACTIONS;

/** What a handler adds to its audit row: never a secret, ids and prefixes only. */
export interface AuditNote {
  /** Overrides the path's id (create: the new collector's id). */
  targetId?: string;
  detail?: Record<string, unknown>;
}

/** The admin routes' context: the session user, and the note the handler leaves for its audit row. */
export type AdminEnv = { Variables: AuthEnv['Variables'] & { auditNote: AuditNote } };

/** Called by a handler that succeeded: what its audit row should carry besides the outcome. */
export function noteAudit(c: Context<AdminEnv>, note: AuditNote): void {
  c.set('auditNote', note);
}

/**
 * Middleware placed after the guards and before the validators, so a refused body (400) is
 * audited as well as the verb's own refusals: it lets the rest of the chain run (Hono turns a
 * thrown error into the `onError` response and records it on `c.error`), then writes the row
 * for what was answered. Errors never propagate out of this middleware, so the response stands.
 */
export function audited(deps: AuthContext, action: AdminAction): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const pathTarget = c.req.param('cameraId') ?? c.req.param('id') ?? c.req.param('keyId') ?? c.req.param('code') ?? null;
    await next();
    const status = c.res.status;
    if (c.error === undefined && status < 400) {
      const note = c.get('auditNote') ?? {};
      await record(deps, c, action, note.targetId ?? pathTarget, { outcome: 'succeeded', status, ...note.detail });
      return;
    }
    const code = c.error instanceof HubError ? c.error.code : c.error === undefined ? `http_${status}` : 'internal';
    await record(deps, c, action, pathTarget, { outcome: 'failed', status, error_code: code });
  };
}

async function record(deps: AuthContext, c: Context<AdminEnv>, action: AdminAction, targetId: string | null, detail: Record<string, unknown>) {
  const user = c.get('user');
  try {
    await writeAudit(deps.db, {
      at: deps.clock.now(),
      action,
      actor: { userId: user.id },
      targetType: targetId === null ? null : ADMIN_ACTIONS[action],
      targetId,
      ip: clientIp(c),
      userAgent: c.req.header('user-agent') ?? null,
      detail: { method: c.req.method, path: c.req.path, ...detail },
    });
  } catch (err) {
    deps.log.error({ err, action, user_id: user.id, target_id: targetId }, 'admin audit row not written');
  }
}
