import { eq } from 'drizzle-orm';
import { generateProvisioningToken, hashSecret, parseProvisioningToken } from '@alpr/shared/credentials/index';
import type { EnrollmentResponse, ProvisionRequest } from '@alpr/shared/protocol/collector';
import { collectors } from '../db/schema/collectors.ts';
import { provisioningTokens } from '../db/schema/provisioning-tokens.ts';
import { HubError, reasonedError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import { addMs, HOUR_MS } from '../platform/clock.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { deviceFromWire, enrollDevice } from './enrollment.ts';
import { isUniqueViolation } from '../db/sql-errors.ts';

/** docs/collectors.md: provisioning token lifetime 1 hour. */
export const PROVISIONING_TOKEN_LIFETIME_MS = HOUR_MS;

export interface IssuedProvisioningToken {
  tokenId: string;
  /** `prov_…`: shown to the admin once; only its SHA-256 is stored. */
  token: string;
  expiresAt: Date;
}

/** Issues a single-use `prov_` token for a pending or active collector, valid 1 hour. */
export async function issueProvisioningToken(ctx: CollectorContext, actor: Actor, collectorId: string): Promise<IssuedProvisioningToken> {
  if (!isUuid(collectorId)) throw new HubError('not_found', 'no such collector');
  const now = ctx.clock.now();
  const token = generateProvisioningToken();
  const expiresAt = addMs(now, PROVISIONING_TOKEN_LIFETIME_MS);
  return ctx.db.transaction(async (tx) => {
    const [collector] = await tx.db.select({ status: collectors.status }).from(collectors).where(eq(collectors.id, collectorId));
    if (!collector) throw new HubError('not_found', 'no such collector');
    if (collector.status === 'decommissioned' || collector.status === 'disabled') {
      throw new HubError('conflict', `collector is ${collector.status}: it cannot be provisioned`);
    }
    const [row] = await tx.db
      .insert(provisioningTokens)
      .values({ collectorId, tokenHash: hashSecret(token), expiresAt, createdAt: now, createdBy: actor.userId })
      .returning({ id: provisioningTokens.id });
    if (!row) throw new Error('provisioning token insert returned no row');
    await writeAudit(tx, {
      at: now,
      action: 'collector.provisioning_token_issued',
      actor: { userId: actor.userId },
      targetType: 'collector',
      targetId: collectorId,
      detail: { token_id: row.id, expires_at: expiresAt.toISOString() },
    });
    return { tokenId: row.id, token, expiresAt };
  });
}

/**
 * Exchanges a provisioning token (docs/collectors.md: issued -> used) for the same
 * enrollment answer a claim gives. Single use: `used_at` is set in the transaction that
 * issues the key, under a row lock, so two concurrent exchanges cannot both succeed.
 */
export async function provision(ctx: CollectorContext, input: ProvisionRequest, ip: string | null): Promise<EnrollmentResponse> {
  const token = parseProvisioningToken(input.provisioning_token);
  if (token === undefined) throw unknownToken();
  try {
    return await ctx.db.transaction(async (tx) => {
      const [row] = await tx.db
        .select()
        .from(provisioningTokens)
        .where(eq(provisioningTokens.tokenHash, hashSecret(token)))
        .for('update');
      if (!row) throw unknownToken();
      const now = ctx.clock.now();
      if (row.usedAt !== null) {
        throw reasonedError('gone', 'provisioning_token_used', 'provisioning token was already used; ask the admin for a new one');
      }
      if (row.expiresAt.getTime() <= now.getTime()) {
        throw reasonedError('gone', 'provisioning_token_expired', 'provisioning token has expired; ask the admin for a new one');
      }
      const [collector] = await tx.db.select().from(collectors).where(eq(collectors.id, row.collectorId)).for('update');
      if (!collector || collector.status === 'decommissioned' || collector.status === 'disabled') {
        throw reasonedError('conflict', 'collector_not_claimable', `collector is ${collector?.status ?? 'missing'}; contact the admin`);
      }
      await tx.db.update(provisioningTokens).set({ usedAt: now }).where(eq(provisioningTokens.id, row.id));
      const enrolled = await enrollDevice(ctx, tx, collector, deviceFromWire(input), ip);
      await writeAudit(tx, {
        at: now,
        action: 'collector.provisioned',
        actor: { collectorId: collector.id },
        targetType: 'collector',
        targetId: collector.id,
        ip,
        detail: { token_id: row.id, hardware_id: input.hardware_id ?? null },
      });
      ctx.log.info({ collector_id: collector.id, ip }, 'collector provisioned');
      return enrolled;
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw reasonedError('conflict', 'hardware_already_registered', 'this device is already registered to another collector; contact the admin');
    }
    throw err;
  }
}

function unknownToken(): HubError {
  return reasonedError('not_found', 'provisioning_token_unknown', 'unknown provisioning token; check it or ask the admin for a new one');
}
