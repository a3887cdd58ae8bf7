import type { EntryRow } from './entries.ts';
import type { mySubscriptions } from './subscriptions.ts';
import type { WatchlistSummary, WatchlistWithRule } from './watchlists.ts';

/** A watchlist as the API shows it (docs/watchlists.md). */
export function presentWatchlist(w: WatchlistWithRule | WatchlistSummary) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    priority: w.priority,
    is_active: w.isActive,
    ocr_tolerant: w.ocrTolerant,
    forgive_one_misread: w.forgiveOneMisread,
    verification_required: w.verificationRequired,
    retro_hunt_days: w.retroHuntDays,
    kind: w.kind,
    mode: w.mode,
    scope: w.scope ?? null,
    ignore_lists: w.ignoreLists ?? [],
    /** The rule in words ("allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris"). */
    scope_words: w.scopeWords ?? '',
    created_by: w.createdBy,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
    ...('entryCount' in w ? { entry_count: w.entryCount, subscribed: w.subscribed, follows_feed: w.followsFeed } : {}),
  };
}

export function presentEntry(e: EntryRow) {
  return {
    id: e.id,
    plate_number: e.plateNumber,
    plate_normalized: e.plateNormalized,
    notes: e.notes,
    added_by: e.addedBy,
    added_at: e.addedAt.toISOString(),
    expires_at: e.expiresAt?.toISOString() ?? null,
    priority: e.priority,
  };
}

/** One of the caller's subscriptions (`GET /api/v1/subscriptions`). */
export function presentSubscription(r: Awaited<ReturnType<typeof mySubscriptions>>[number]) {
  return { watchlist_id: r.watchlistId, name: r.name, priority: r.priority, is_active: r.isActive, since: r.since.toISOString() };
}

export type SubscriptionRecord = ReturnType<typeof presentSubscription>;
