/**
 * The retro-hunt for plates added by hand (docs/watchlists.md "Retro-hunt"): one entry
 * through the API or page, or a CSV import. The list's own `retro_hunt_days` (0033) says how
 * far back; a feed's plates use the feed's setting instead (feeds/sync.ts). Runs in the
 * transaction that adds the entries, so the entries and their historical hits commit
 * together, and the unique (detection, watchlist) pair keeps a read that already raised an
 * alert on this list (live or historical) from raising a second.
 */
import type { DbSession } from '../db/session.ts';
import type { WatchlistPriority } from '../db/schema/watchlists.ts';
import type { RetroHunt } from './hunt.ts';
import type { WatchlistRow } from './watchlists.ts';

/** What the add answer says: how far back the hunt looked and how many historical hits it raised. */
export interface RetroHuntReport {
  days: number;
  hits: number;
}

/** Asks an add verb to hunt: the alerts domain's retro-hunt, handed in by app.ts. */
export interface HandAddedHunt {
  hunt: RetroHunt;
}

export interface AddedEntry {
  id: string;
  plate_number: string;
  plate_normalized: string;
  notes: string | null;
  expires_at: Date | string | null;
  priority: WatchlistPriority | null;
}

export async function huntHandAdded(
  tx: DbSession,
  list: WatchlistRow,
  added: readonly AddedEntry[],
  by: { userId: string; now: Date; hunt: RetroHunt },
): Promise<RetroHuntReport> {
  const days = list.retroHuntDays;
  const raised = await by.hunt(
    tx,
    { id: list.id, name: list.name, priority: list.priority, ocrTolerant: list.ocrTolerant, forgiveOneMisread: list.forgiveOneMisread },
    added.map((e) => ({
      id: e.id,
      plate: e.plate_number,
      key: e.plate_normalized,
      notes: e.notes,
      addedBy: by.userId,
      addedAt: by.now,
      expiresAt: e.expires_at === null ? null : new Date(e.expires_at),
      priority: e.priority,
    })),
    { days, now: by.now },
  );
  return { days, hits: raised.length };
}
