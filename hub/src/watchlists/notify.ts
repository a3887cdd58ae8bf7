import { WATCHLIST_CHANNEL } from '../db/channels.ts';
import type { DbSession } from '../db/session.ts';

/**
 * Tells every hub process to drop its watchlist cache at once (cache.ts). Sent inside the
 * changing transaction: delivered on commit, never for a rolled-back change.
 */
export async function notifyWatchlistChanged(tx: DbSession, watchlistId: string): Promise<void> {
  await tx.sql(`SELECT pg_notify('${WATCHLIST_CHANNEL}', $1::text)`, [watchlistId]);
}
