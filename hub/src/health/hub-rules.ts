/**
 * What is wrong with the hub itself right now (docs/health.md "Search keys"). Pure, like
 * rules.ts for collectors: a finding on (open), off (close), or none (no opinion: the state
 * stays). Hub findings have no collector and no camera.
 */
import { SEARCH_KEYS } from './kinds.ts';
import type { Finding } from './rules.ts';
import { duration } from './rules.ts';

export interface HubFacts {
  /** The key builder's lag (db/unkeyed-reads.ts `keyLag`); undefined when it could not be read. */
  searchKeysLag: { reads: number; seconds: number } | undefined;
}

export function hubFindings(facts: HubFacts): Finding[] {
  const lag = facts.searchKeysLag;
  if (!lag) return []; // unread: keep the alert as it is rather than close it blind
  const base = { kind: 'search_keys_behind' as const, cameraId: null, cameraName: null };
  if (lag.seconds > SEARCH_KEYS.lagAlertSeconds) {
    const reads = lag.reads.toLocaleString('en-US');
    return [
      {
        ...base,
        on: true,
        message: `Search keys are ${duration(lag.seconds * 1000)} behind (${reads} reads not keyed yet): searches still find every read, but each one reads the unkeyed reads the slow way. Is the key builder running?`,
        detail: { lag_reads: lag.reads, lag_seconds: Math.round(lag.seconds), threshold_seconds: SEARCH_KEYS.lagAlertSeconds },
      },
    ];
  }
  if (lag.seconds <= SEARCH_KEYS.closeAtOrBelowSeconds) return [{ ...base, on: false, message: '', detail: {} }];
  return [];
}
