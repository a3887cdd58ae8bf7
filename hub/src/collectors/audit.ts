import { auditLog } from '../db/schema/audit-log.ts';
import type { DbSession } from '../db/session.ts';

export interface AuditEntry {
  at: Date;
  action: string;
  actorUserId?: string | null;
  actorCollectorId?: string | null;
  targetType: string;
  targetId: string;
  ip?: string | null;
  detail?: Record<string, unknown>;
}

/**
 * One write-once audit row. Called inside the verb's transaction, so the audit record and
 * the change it describes commit (or roll back) together. Never put a secret in `detail`.
 */
export async function writeAudit(db: DbSession, entry: AuditEntry): Promise<void> {
  await db.db.insert(auditLog).values({
    at: entry.at,
    action: entry.action,
    actorUserId: entry.actorUserId ?? null,
    actorCollectorId: entry.actorCollectorId ?? null,
    targetType: entry.targetType,
    targetId: entry.targetId,
    ip: entry.ip ?? null,
    detail: entry.detail ?? {},
  });
}
