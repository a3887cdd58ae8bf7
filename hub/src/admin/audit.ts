import type { Context } from 'hono';
import { writeAudit } from '../audit/write.ts';
import { clientIp } from '../http/client-ip.ts';
import type { AuthContext } from '../auth/context.ts';
import type { AuthEnv } from '../auth/middleware.ts';
import { HubError } from '../errors.ts';

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
} as const;
export type AdminAction = keyof typeof ADMIN_ACTIONS;

export interface AuditedResult {
  response: Response;
  /** Overrides the path's id (create: the new collector's id). */
  targetId?: string;
  /** Never a secret: ids and prefixes only. */
  detail?: Record<string, unknown>;
}

export type AuditedHandler = (c: Context<AuthEnv>) => Promise<AuditedResult>;

/** Wraps a handler: runs it, writes the audit row for success or failure, rethrows errors. */
export function audited(deps: AuthContext, action: AdminAction, handler: AuditedHandler) {
  return async (c: Context<AuthEnv>): Promise<Response> => {
    const pathTarget = c.req.param('id') ?? c.req.param('keyId') ?? null;
    try {
      const result = await handler(c);
      await record(deps, c, action, result.targetId ?? pathTarget, { outcome: 'succeeded', status: result.response.status, ...result.detail });
      return result.response;
    } catch (err) {
      const failure = err instanceof HubError ? { status: err.status, error_code: err.code } : { status: 500, error_code: 'internal' };
      await record(deps, c, action, pathTarget, { outcome: 'failed', ...failure });
      throw err;
    }
  };
}

async function record(deps: AuthContext, c: Context<AuthEnv>, action: AdminAction, targetId: string | null, detail: Record<string, unknown>) {
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
