import type { DbSession } from '../db/session.ts';
import { slidingWindowDecision, tokenBucketDecision, type RateDecision } from './rate-limit-policy.ts';

export type RateAlgorithm = 'sliding-window' | 'token-bucket';

/** Rows older than this are garbage for every limit in RATE_LIMITS (the longest window is 1 min). */
const PRUNE_AFTER_MS = 3_600_000;

/**
 * One hit against `key`, decided and recorded atomically in Postgres (rate_limit_hits), so
 * all hub processes share the count. A transaction-scoped advisory lock on the key
 * serialises concurrent hits on the same key only.
 * - sliding window: one row per accepted hit, expired rows of the key deleted as we go;
 * - token bucket: one row per key whose `at` is the GCRA theoretical arrival time.
 */
export async function consumeRateLimit(
  db: DbSession,
  key: string,
  algorithm: RateAlgorithm,
  limit: number,
  windowMs: number,
  now: Date,
): Promise<RateDecision> {
  return db.transaction(async (tx) => {
    await tx.sql('SELECT pg_advisory_xact_lock(hashtext($1))', [`rate:${key}`]);
    if (algorithm === 'sliding-window') {
      const since = new Date(now.getTime() - windowMs);
      await tx.sql('DELETE FROM rate_limit_hits WHERE key = $1 AND at <= $2', [key, since]);
      const rows = await tx.sql<{ at: Date }>('SELECT at FROM rate_limit_hits WHERE key = $1 AND at > $2', [key, since]);
      const decision = slidingWindowDecision(
        rows.map((r) => r.at),
        now,
        limit,
        windowMs,
      );
      if (decision.allowed) await tx.sql('INSERT INTO rate_limit_hits (key, at) VALUES ($1, $2)', [key, now]);
      return decision;
    }
    const rows = await tx.sql<{ at: Date }>('SELECT at FROM rate_limit_hits WHERE key = $1 ORDER BY at DESC LIMIT 1', [key]);
    const decision = tokenBucketDecision(rows[0]?.at ?? null, now, limit, windowMs);
    if (decision.allowed) {
      await tx.sql('DELETE FROM rate_limit_hits WHERE key = $1', [key]);
      await tx.sql('INSERT INTO rate_limit_hits (key, at) VALUES ($1, $2)', [key, decision.nextTat]);
    }
    return decision;
  });
}

/** Drops rows no limit can still count: keys that stopped being used leave nothing behind. */
export async function pruneRateLimitHits(db: DbSession, now: Date): Promise<number> {
  const rows = await db.sql<{ n: number }>('WITH gone AS (DELETE FROM rate_limit_hits WHERE at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone', [
    new Date(now.getTime() - PRUNE_AFTER_MS),
  ]);
  return rows[0]?.n ?? 0;
}
