import { eq } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { apiKeyPrefix, constantTimeEqual, hashSecret, isWellFormedApiKey } from '@alpr/shared/credentials/index';
import { apiKeys } from '../db/schema/api-keys.ts';
import { SUSPENDED_RETRY_AFTER_SECONDS } from '@alpr/shared/protocol/collector';
import { HubError, reasonedError } from '../platform/errors.ts';
import { REPLACED_REASON } from './issue-key.ts';
import { clientIp } from '../platform/http/client-ip.ts';
import type { CollectorContext } from './context.ts';

/** Who a valid `X-API-Key` belongs to; set as `c.var.collector` by `requireCollector`. */
export interface AuthenticatedCollector {
  collectorId: string;
  keyId: string;
  keyPrefix: string;
  /**
   * The collector is suspended (status `disabled`): it may heartbeat and acknowledge
   * commands, but its uploads are refused (refuseIfSuspended).
   */
  suspended: boolean;
}

/** Hono variables of routes behind `requireCollector`. */
export interface CollectorVariables {
  collector: AuthenticatedCollector;
}
export interface CollectorEnv {
  Variables: CollectorVariables;
}

/** api_keys joined with its collector's status (raw columns; timestamps as Date, raw.ts). */
interface KeyRow extends Record<string, unknown> {
  key_id: string;
  key_hash: string;
  key_prefix: string;
  is_active: boolean;
  revoked_at: Date | null;
  revoke_reason: string | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
  collector_id: string;
  collector_status: string;
}

/** Why a key was refused: logged for operators, never sent to the client. */
export type KeyRejection = 'malformed' | 'unknown' | 'inactive' | 'revoked' | 'replaced' | 'expired' | 'collector_not_active';

/**
 * `last_used_at` is rewritten only when it is this old, when the key's address changed, or
 * on its first use: a write on every request cost each batch upload an extra commit (one
 * WAL flush on a production server, ~4-15 ms of a 60 ms budget) for a figure operators read
 * to the minute. The first use is always recorded at once: rotation (deactivate-key.ts)
 * proves a new key by it.
 */
export const LAST_USE_WRITE_INTERVAL_MS = 60_000;

/** One answer for every failure, so the response is no oracle for which check failed. */
export const UNAUTHORIZED_MESSAGE = 'missing or invalid API key';

/**
 * docs/protocol.md, in its order:
 * 1. `alpr_` prefix and exact length (before any hashing or lookup);
 * 2. the SHA-256 of the key matches a stored record;
 * 3. the record is active (a revoked key is logged with prefix, collector and address);
 * 4. `expires_at` is null or in the future;
 * 5. the collector is active, or suspended (uploads then refused by refuseIfSuspended).
 * On success `last_used_at` / `last_used_ip` are updated (at most once a minute per key, see
 * LAST_USE_WRITE_INTERVAL_MS). Every failure is 401.
 */
export async function authenticateCollector(ctx: CollectorContext, rawKey: string | undefined, ip: string | null): Promise<AuthenticatedCollector> {
  if (!isWellFormedApiKey(rawKey)) throw reject(ctx, 'malformed', { ip });
  const keyHash = hashSecret(rawKey);
  const [row] = await ctx.db.sql<KeyRow>(
    `SELECT k.id AS key_id, k.key_hash, k.key_prefix, k.is_active, k.revoked_at, k.revoke_reason, k.expires_at,
            k.last_used_at, k.last_used_ip, k.collector_id, c.status AS collector_status
     FROM api_keys k JOIN collectors c ON c.id = k.collector_id
     WHERE k.key_hash = $1 LIMIT 1`,
    [keyHash],
    // Every upload asks this: prepared once per connection, one round trip after.
    { prepare: true },
  );
  // The unique index finds the row; the constant-time check keeps the final comparison
  // independent of how many leading characters match.
  if (!row || !constantTimeEqual(row.key_hash, keyHash)) {
    throw reject(ctx, 'unknown', { ip, key_prefix: apiKeyPrefix(rawKey) });
  }
  const seen = { ip, key_prefix: row.key_prefix, collector_id: row.collector_id };
  // The one refusal that names its cause: the old box of a replaced collector must say why
  // it stopped, and the key is dead either way, so the answer confirms nothing useful.
  if (row.revoked_at !== null && row.revoke_reason === REPLACED_REASON) throw replaced(ctx, seen);
  if (row.revoked_at !== null) throw reject(ctx, 'revoked', seen);
  if (!row.is_active) throw reject(ctx, 'inactive', seen);
  const now = ctx.clock.now();
  if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) throw reject(ctx, 'expired', seen);
  if (row.collector_status !== 'active' && row.collector_status !== 'disabled') throw reject(ctx, 'collector_not_active', seen);
  if (lastUseIsStale(row.last_used_at, row.last_used_ip, now, ip)) {
    await ctx.db.db.update(apiKeys).set({ lastUsedAt: now, lastUsedIp: ip }).where(eq(apiKeys.id, row.key_id));
  }
  return { collectorId: row.collector_id, keyId: row.key_id, keyPrefix: row.key_prefix, suspended: row.collector_status === 'disabled' };
}

/** Whether this use must be written (LAST_USE_WRITE_INTERVAL_MS). Pure. */
export function lastUseIsStale(lastUsedAt: Date | null, lastUsedIp: string | null, now: Date, ip: string | null): boolean {
  if (lastUsedAt === null || lastUsedIp !== ip) return true;
  // Either way: a clock set back by a day must not freeze the figure for that day.
  return Math.abs(now.getTime() - lastUsedAt.getTime()) >= LAST_USE_WRITE_INTERVAL_MS;
}

function reject(ctx: CollectorContext, reason: KeyRejection, seen: Record<string, unknown>): HubError {
  // Use of a revoked key is logged with the key prefix, collector id and source address
  // and may raise an alert (docs/security.md) -> warn. The other refusals are routine (a stale key
  // after rotation).
  if (reason === 'revoked') ctx.log.warn({ ...seen, reason }, 'revoked collector API key used');
  else ctx.log.info({ ...seen, reason }, 'collector API key refused');
  return new HubError('unauthorized', UNAUTHORIZED_MESSAGE);
}

function replaced(ctx: CollectorContext, seen: Record<string, unknown>): HubError {
  ctx.log.warn({ ...seen, reason: 'replaced' }, 'key of a replaced collector box used');
  return reasonedError(
    'unauthorized',
    'collector_replaced',
    'this box was replaced by another device on the hub; its key is revoked and nothing it sends is stored',
  );
}

/** Uploads of a suspended collector: 403 with Retry-After; nothing is read or stored (suspend.ts). */
export function refuseIfSuspended(collector: AuthenticatedCollector): void {
  if (!collector.suspended) return;
  throw reasonedError('forbidden', 'collector_suspended', 'collector suspended by the hub: keep the readings and try again later', {
    'Retry-After': String(SUSPENDED_RETRY_AFTER_SECONDS),
  });
}

/**
 * Middleware for collector endpoints: validates `X-API-Key` and sets `c.var.collector`.
 * Client address as resolved by the app's edge (http/client-ip.ts: trusted proxies honoured).
 */
export function requireCollector(ctx: CollectorContext) {
  return createMiddleware<CollectorEnv>(async (c, next) => {
    const collector = await authenticateCollector(ctx, c.req.header('x-api-key'), clientIp(c));
    c.set('collector', collector);
    await next();
  });
}
