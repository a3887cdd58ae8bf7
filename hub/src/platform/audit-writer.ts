import { auditLog } from '../db/schema/audit-log.ts';
import type { DbSession } from '../db/session.ts';

/** Who did it: a user, a collector, or neither (an anonymous request, e.g. a failed login). */
export interface AuditActor {
  userId?: string | null;
  collectorId?: string | null;
}

export interface AuditRecord {
  /** From the injected clock, so tests that move time see consistent rows. */
  at: Date;
  /** Dotted verb, e.g. `auth.login_succeeded`, `auth.two_factor_enrolled`. */
  action: string;
  actor?: AuditActor;
  targetType?: string | null;
  targetId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  /** Never a secret: no password, code, token or key in here. */
  detail?: Record<string, unknown>;
}

/** audit_log.user_agent is text; a 10 KB User-Agent header is still not worth keeping whole. */
const MAX_USER_AGENT = 512;

/**
 * Appends one write-once row (UPDATE/DELETE are refused by trigger, migration 0007). Pass
 * the verb's transaction so the record and the change it describes commit together.
 */
export async function writeAudit(db: DbSession, record: AuditRecord): Promise<void> {
  await db.db.insert(auditLog).values({
    at: record.at,
    action: record.action,
    actorUserId: record.actor?.userId ?? null,
    actorCollectorId: record.actor?.collectorId ?? null,
    targetType: record.targetType ?? null,
    targetId: record.targetId ?? null,
    ip: record.ip ?? null,
    userAgent: record.userAgent ? record.userAgent.slice(0, MAX_USER_AGENT) : null,
    detail: record.detail ?? {},
  });
}
