/**
 * The search key builder's lag as /healthz shows it (docs/health.md "Search keys"): reads not
 * keyed yet, how long the oldest has waited, and whether that passes SEARCH_KEYS.lagAlertSeconds.
 * Read at most every 5 s whatever the callers (the route answers anyone); a failed read says
 * so instead of failing the health answer.
 */
import type { Clock } from '../platform/clock.ts';
import type { DbSession } from '../db/session.ts';
import { keyLag } from '../db/unkeyed-reads.ts';
import { SEARCH_KEYS } from './kinds.ts';

export type SearchKeysHealth = { lag_reads: number; lag_seconds: number; behind: boolean } | { error: string };

/** Pure: the lag as shown, `behind` past the documented threshold. */
export function searchKeysHealth(lag: { reads: number; seconds: number }): SearchKeysHealth {
  return { lag_reads: lag.reads, lag_seconds: Math.round(lag.seconds * 10) / 10, behind: lag.seconds > SEARCH_KEYS.lagAlertSeconds };
}

export function createSearchKeysHealth(db: DbSession, clock: Clock): () => Promise<SearchKeysHealth> {
  let last: { at: number; value: Promise<SearchKeysHealth> } | undefined;
  return () => {
    const now = clock.now();
    if (!last || now.getTime() - last.at >= SEARCH_KEYS.healthzCacheMs || now.getTime() < last.at) {
      last = {
        at: now.getTime(),
        value: keyLag(db, now).then(searchKeysHealth, () => ({ error: 'the search keys lag could not be read' })),
      };
    }
    return last.value;
  };
}
