/**
 * What a watchlist asks for when plates are added to it (docs/watchlists.md "Retro-hunt"):
 * the reads of the last N days searched for them, each match raised as a historical hit.
 * Watchlists say which list, which entries and how far back; raising the alerts is the
 * alerts domain's (alerts/retro-hunt.ts), handed in as a `RetroHunt` by the composition root
 * (app.ts, start-workers.ts), so watchlists never import alerts.
 */
import type { DbSession } from '../db/session.ts';
import type { WatchlistPriority } from '../db/schema/watchlists.ts';

/** At most 30 days back: a month of reads is what a busy hub searches in seconds. */
export const MAX_RETRO_HUNT_DAYS = 30;
export const DEFAULT_RETRO_HUNT_DAYS = 7;

export interface HuntList {
  id: string;
  name: string;
  priority: WatchlistPriority;
  ocrTolerant: boolean;
  forgiveOneMisread: boolean;
}

export interface HuntEntry {
  id: string;
  plate: string;
  key: string;
  notes: string | null;
  addedBy: string | null;
  addedAt: Date;
  expiresAt: Date | null;
  priority: WatchlistPriority | null;
}

/** Raises the historical hits in the caller's transaction; answers the alerts it raised. */
export type RetroHunt = (
  tx: DbSession,
  list: HuntList,
  entries: readonly HuntEntry[],
  options: { days: number; now: Date },
) => Promise<readonly { id: string }[]>;
