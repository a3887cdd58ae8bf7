import type { Context } from 'hono';
import { writeAudit } from '../platform/audit-writer.ts';
import type { AuthContext } from '../auth/context.ts';
import type { AuthEnv } from '../auth/middleware.ts';
import { requestMeta } from '../auth/request.ts';
import { checkPurpose, type LookupPurpose, type StatedPurpose } from '../audit/purposes/check.ts';
import { requestScope } from '../sites/request-scope.ts';
import { scopeRecord } from '../sites/scope.ts';

/**
 * The audit row of a lookup (a search, a detection view, an investigation, an export;
 * docs/search.md "Audit"): who, when, from where, and `detail`: the purpose, the case
 * number and the note (top level, so the audit list filters on them), the query, the count,
 * and the site scope the lookup ran in (docs/sites.md).
 */
export async function auditLookup(
  deps: AuthContext,
  c: Context<AuthEnv>,
  action: string,
  stated: StatedPurpose,
  detail: Record<string, unknown>,
  detectionId: string | null = null,
): Promise<void> {
  const meta = requestMeta(c);
  const scope = scopeRecord(await requestScope(deps.db, c));
  await writeAudit(deps.db, {
    at: deps.clock.now(),
    action,
    actor: { userId: c.get('user').id },
    targetType: detectionId ? 'detection' : null,
    targetId: detectionId,
    ip: meta.ip,
    userAgent: meta.userAgent,
    detail: { purpose: stated.purpose, case_number: stated.case_number, reason: stated.reason, scope, ...detail },
  });
}

/** The purpose checked before any lookup runs: a refused purpose reads nothing (400). */
export const statedPurpose = (deps: AuthContext, given: LookupPurpose): Promise<StatedPurpose> => checkPurpose(deps.db, given);

/** Recorded on their own, beside the query. */
const WHY = new Set(['reason', 'purpose', 'case_number']);

/** The query string as given, without the purpose, case number and note; repeated keys joined by commas. */
export function lookupQuery(c: Context): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of new URL(c.req.url).searchParams) if (!WHY.has(key)) query[key] = query[key] ? `${query[key]},${value}` : value;
  return query;
}
