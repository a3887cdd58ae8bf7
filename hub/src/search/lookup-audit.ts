import type { Context } from 'hono';
import { writeAudit } from '../audit/write.ts';
import type { AuthContext } from '../auth/context.ts';
import type { AuthEnv } from '../auth/middleware.ts';
import { requestMeta } from '../auth/request.ts';

/**
 * The audit row of a lookup (a search, a detection view, an investigation, an export;
 * docs/search.md): who, when, from where, and `detail` (the reason, the query, the count).
 */
export async function auditLookup(
  deps: AuthContext,
  c: Context<AuthEnv>,
  action: string,
  detail: Record<string, unknown>,
  detectionId: string | null = null,
): Promise<void> {
  const meta = requestMeta(c);
  await writeAudit(deps.db, {
    at: deps.clock.now(),
    action,
    actor: { userId: c.get('user').id },
    targetType: detectionId ? 'detection' : null,
    targetId: detectionId,
    ip: meta.ip,
    userAgent: meta.userAgent,
    detail,
  });
}

/** The query string as given, without the reason (recorded on its own); repeated keys joined by commas. */
export function queryWithoutReason(c: Context): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of new URL(c.req.url).searchParams) if (key !== 'reason') query[key] = query[key] ? `${query[key]},${value}` : value;
  return query;
}
