import type { DbSession } from '../db/session.ts';

/**
 * Channel every hub process LISTENs on to drop its watchlist cache at once (cache.ts).
 * Sent inside the changing transaction: delivered on commit, never for a rolled-back change.
 */
export const WATCHLIST_CHANNEL = 'watchlists';

export async function notifyWatchlistChanged(tx: DbSession, watchlistId: string): Promise<void> {
  await tx.sql(`SELECT pg_notify('${WATCHLIST_CHANNEL}', $1::text)`, [watchlistId]);
}
