import { and, eq, isNull, lte, ne } from 'drizzle-orm';
import { apiKeys } from '../db/schema/api-keys.ts';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { Actor } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';

/**
 * docs/collectors.md: the old key goes inactive when the grace period ends "or admin deactivates
 * after verifying the new key by heartbeat". Deactivation is not a revocation: no alarm on
 * later use, no `revoked_*` fields; the key simply stops validating (401).
 */
export interface DeactivatedKey {
  keyId: string;
  keyPrefix: string;
  collectorId: string;
  /** The newer key whose use by the collector made this safe. */
  provenBy: { keyId: string; keyPrefix: string; lastUsedAt: string };
}

/**
 * Admin deactivates an old key early. Refused (409) unless the collector holds a newer
 * active key that it has already used: switching off the only key a collector has proven
 * would lock it out until someone reinstalls it by hand. Revocation stays available for a
 * compromised key (no such check: that is what revoke is for).
 */
export async function deactivateKey(ctx: CollectorContext, actor: Actor, keyId: string): Promise<DeactivatedKey> {
  if (!isUuid(keyId)) throw new HubError('not_found', 'no such key');
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for('update');
    if (!row) throw new HubError('not_found', 'no such key');
    if (row.revokedAt !== null || !row.isActive) throw new HubError('conflict', `key ${row.keyPrefix} is already inactive`);
    const newer = await tx.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.collectorId, row.collectorId), ne(apiKeys.id, row.id), eq(apiKeys.isActive, true), isNull(apiKeys.revokedAt)));
    const proven = newer
      .filter((k) => k.createdAt.getTime() >= row.createdAt.getTime() && k.lastUsedAt !== null)
      .filter((k) => k.expiresAt === null || k.expiresAt.getTime() > now.getTime())
      .sort((a, b) => (b.lastUsedAt?.getTime() ?? 0) - (a.lastUsedAt?.getTime() ?? 0))[0];
    if (!proven || proven.lastUsedAt === null) {
      throw new HubError(
        'conflict',
        `the collector has not used a newer key yet: deactivating ${row.keyPrefix} would lock it out (wait for a heartbeat with the new key, or revoke if the key is compromised)`,
      );
    }
    await tx.db.update(apiKeys).set({ isActive: false }).where(eq(apiKeys.id, row.id));
    const provenBy = { keyId: proven.id, keyPrefix: proven.keyPrefix, lastUsedAt: proven.lastUsedAt.toISOString() };
    await writeAudit(tx, {
      at: now,
      action: 'collector.key_deactivated',
      actor: { userId: actor.userId },
      targetType: 'api_key',
      targetId: row.id,
      detail: { collector_id: row.collectorId, key_prefix: row.keyPrefix, rule: 'admin', proven_by_key_id: proven.id, proven_by_key_prefix: proven.keyPrefix },
    });
    ctx.log.info({ collector_id: row.collectorId, key_prefix: row.keyPrefix }, 'old collector key deactivated by admin');
    return { keyId: row.id, keyPrefix: row.keyPrefix, collectorId: row.collectorId, provenBy };
  });
}

/**
 * The automatic rule (docs/collectors.md "Key rotation"): the collector acknowledged a
 * `rotate_key` command with `success` on a request authenticated by the new key itself,
 * after a heartbeat on it; every older key of that collector still active is switched off
 * now instead of at the end of the grace period. Runs inside the ack's transaction.
 * Returns the prefixes switched off.
 */
export async function deactivateKeysReplacedBy(
  ctx: CollectorContext,
  tx: DbSession,
  input: { collectorId: string; newKeyId: string; commandId: string; now: Date },
): Promise<string[]> {
  const [newKey] = await tx.db.select().from(apiKeys).where(eq(apiKeys.id, input.newKeyId));
  if (!newKey || newKey.collectorId !== input.collectorId) return [];
  const rows = await tx.db
    .update(apiKeys)
    .set({ isActive: false })
    .where(
      and(
        eq(apiKeys.collectorId, input.collectorId),
        ne(apiKeys.id, newKey.id),
        eq(apiKeys.isActive, true),
        isNull(apiKeys.revokedAt),
        lte(apiKeys.createdAt, newKey.createdAt),
      ),
    )
    .returning({ id: apiKeys.id, keyPrefix: apiKeys.keyPrefix });
  for (const row of rows) {
    await writeAudit(tx, {
      at: input.now,
      action: 'collector.key_deactivated',
      actor: { collectorId: input.collectorId },
      targetType: 'api_key',
      targetId: row.id,
      detail: {
        collector_id: input.collectorId,
        key_prefix: row.keyPrefix,
        rule: 'rotation_acknowledged',
        command_id: input.commandId,
        proven_by_key_id: newKey.id,
        proven_by_key_prefix: newKey.keyPrefix,
      },
    });
  }
  if (rows.length > 0) {
    ctx.log.info(
      { collector_id: input.collectorId, deactivated: rows.map((r) => r.keyPrefix), key_prefix: newKey.keyPrefix },
      'old collector keys deactivated: rotation acknowledged with the new key',
    );
  }
  return rows.map((r) => r.keyPrefix);
}
