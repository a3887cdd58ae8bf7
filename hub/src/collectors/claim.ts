import { and, eq } from 'drizzle-orm';
import { hashSecret, parseClaimCode } from '@alpr/shared/credentials/index';
import type { ClaimRequest, EnrollmentResponse } from '@alpr/shared/protocol/collector';
import { auditLog } from '../db/schema/audit-log.ts';
import { collectors } from '../db/schema/collectors.ts';
import type { DbSession } from '../db/session.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import { reasonedError, type HubError } from '../platform/errors.ts';
import type { CollectorContext } from './context.ts';
import { deviceFromWire, enrollDevice } from './enrollment.ts';
import { isUniqueViolation } from '../db/sql-errors.ts';

/**
 * The audit row that marks a claim code as consumed. The code itself is cleared from the
 * collector, so only its SHA-256 remains, as the audit target: it lets a second
 * attempt with the same code be told "already used" instead of "unknown".
 */
const CONSUMED_TARGET = 'claim_code';

/**
 * Claim (docs/collectors.md, pending -> active): a valid, unexpired, unused code and a
 * device not registered elsewhere give the collector id, a new API key (shown once), the
 * initial configuration and the hub's command-signing key. A collector marked for
 * replacement (replace.ts) is claimed the same way by its new box and stays the same collector. Each refusal has its own
 * status and `reason` (docs/collectors.md, "Claim errors").
 */
export async function claim(ctx: CollectorContext, input: ClaimRequest, ip: string | null): Promise<EnrollmentResponse> {
  const code = parseClaimCode(input.claim_code);
  if (code === undefined) throw unknownCode();
  try {
    const response = await ctx.db.transaction(async (tx) => {
      const [row] = await tx.db.select().from(collectors).where(eq(collectors.claimCode, code)).for('update');
      if (!row) throw (await wasConsumed(tx, code)) ? usedCode() : unknownCode();
      const now = ctx.clock.now();
      if (row.claimCodeExpiresAt === null || row.claimCodeExpiresAt.getTime() <= now.getTime()) {
        throw reasonedError('gone', 'claim_code_expired', 'claim code has expired; ask the admin for a new one');
      }
      // A collector marked for replacement (replace.ts) takes a new box while active or suspended.
      const replacing = row.pendingReplacement && (row.status === 'active' || row.status === 'disabled');
      if (row.status !== 'pending' && !replacing) {
        throw reasonedError('conflict', 'collector_not_claimable', `collector is ${row.status}; contact the admin`);
      }
      const enrolled = await enrollDevice(ctx, tx, row, deviceFromWire(input), ip, { replacing });
      if (replacing) {
        await writeAudit(tx, {
          at: now,
          action: 'collector.replaced',
          actor: { collectorId: row.id },
          targetType: 'collector',
          targetId: row.id,
          ip,
          detail: { previous_hardware_id: row.hardwareId, hardware_id: input.hardware_id },
        });
      }
      await writeAudit(tx, {
        at: now,
        action: 'collector.claimed',
        actor: { collectorId: row.id },
        targetType: CONSUMED_TARGET,
        targetId: hashSecret(code),
        ip,
        detail: { collector_id: row.id, hardware_id: input.hardware_id },
      });
      return enrolled;
    });
    ctx.log.info({ collector_id: response.collector_id, ip }, 'collector claimed');
    return response;
  } catch (err) {
    // Two devices racing for one hardware id: the partial unique index decides.
    if (isUniqueViolation(err)) {
      throw reasonedError('conflict', 'hardware_already_registered', 'this device is already registered to another collector; contact the admin');
    }
    throw err;
  }
}

async function wasConsumed(tx: DbSession, code: string): Promise<boolean> {
  const [row] = await tx.db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(and(eq(auditLog.targetType, CONSUMED_TARGET), eq(auditLog.targetId, hashSecret(code))))
    .limit(1);
  return row !== undefined;
}

function unknownCode(): HubError {
  return reasonedError('not_found', 'claim_code_unknown', 'unknown claim code; check it and retry, or contact the admin');
}

function usedCode(): HubError {
  return reasonedError('gone', 'claim_code_used', 'claim code was already used; ask the admin for a new one');
}
