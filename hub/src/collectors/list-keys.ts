import { asc, eq } from 'drizzle-orm';
import { apiKeys } from '../db/schema/api-keys.ts';
import { HubError } from '../platform/errors.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { CollectorContext } from './context.ts';

export type KeyStatus = 'active' | 'expired' | 'revoked' | 'inactive';

export interface KeySummary {
  id: string;
  prefix: string;
  name: string | null;
  status: KeyStatus;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  revokedAt: Date | null;
  revokeReason: string | null;
}

/** Revoked wins over expired; `inactive` is a key switched off without a revocation record. */
export function keyStatus(key: { isActive: boolean; revokedAt: Date | null; expiresAt: Date | null }, now: Date): KeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (!key.isActive) return 'inactive';
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** A collector's keys, oldest first: prefix, status, last use (docs/collectors.md). */
export async function listKeys(ctx: CollectorContext, collectorId: string): Promise<KeySummary[]> {
  if (!isUuid(collectorId)) throw new HubError('not_found', 'no such collector');
  const now = ctx.clock.now();
  const rows = await ctx.db.db.select().from(apiKeys).where(eq(apiKeys.collectorId, collectorId)).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map((r) => ({
    id: r.id,
    prefix: r.keyPrefix,
    name: r.name,
    status: keyStatus(r, now),
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    lastUsedAt: r.lastUsedAt,
    lastUsedIp: r.lastUsedIp,
    revokedAt: r.revokedAt,
    revokeReason: r.revokeReason,
  }));
}
