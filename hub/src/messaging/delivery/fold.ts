/**
 * The per-plate cooldown (docs/messaging.md "Who gets a message"), pure. Within the
 * cooldown (600 s by default) a chat is not told again about a plate it was just told
 * about *at the same collector*: a parked car passing the same gate every two minutes would
 * otherwise ping five times in ten minutes. The repeat is folded into the message that went
 * out and counted on it. Everything that changes what the operator knows goes out at once:
 * the same car at another collector (a pursuit: seen at site A, now at site B) or on a
 * more urgent watchlist than the message that went out.
 */
import { watchlistPriorities, type WatchlistPriority } from '../../db/schema/watchlists.ts';

/** The cooldown running for one chat and plate: what the last message sent said. */
export interface CooldownWindow {
  /** The sighting (detection) whose message opened the window. */
  detectionId: string;
  /** Where it was seen; null for windows opened before sites were recorded (migration 0023). */
  collectorId: string | null;
  /** The most urgent watchlist that went out for it; null when not recorded. */
  priority: WatchlistPriority | null;
  until: Date;
  /**
   * Whether that message is on its way or arrived. One that failed for good, or was held back
   * at the last moment (the chat muted or unlinked inside the aggregation window), told the
   * operator nothing: nothing can be folded into it.
   */
  reaching: boolean;
}

/** A new sighting of the plate for the chat; `priority` is the most urgent of its alerts. */
export interface Sighting {
  detectionId: string;
  collectorId: string;
  priority: WatchlistPriority;
}

export type RepeatVerdict =
  | { send: true; because: 'no_window' | 'same_sighting' | 'window_over' | 'other_site' | 'higher_priority' | 'first_not_delivered' }
  | { send: false; foldInto: string };

/** Position in the ordered priorities, lowest 0; -1 for a value the list does not know. */
export function priorityRank(priority: string | null): number {
  return priority === null ? -1 : (watchlistPriorities as readonly string[]).indexOf(priority);
}

export function repeatVerdict(window: CooldownWindow | null, sighting: Sighting, now: Date): RepeatVerdict {
  if (!window) return { send: true, because: 'no_window' };
  // A detection on two watchlists raises two alerts: they go out together, whenever raised.
  if (window.detectionId === sighting.detectionId) return { send: true, because: 'same_sighting' };
  if (window.until.getTime() <= now.getTime()) return { send: true, because: 'window_over' };
  if (window.collectorId !== sighting.collectorId) return { send: true, because: 'other_site' };
  if (priorityRank(sighting.priority) > priorityRank(window.priority)) return { send: true, because: 'higher_priority' };
  if (!window.reaching) return { send: true, because: 'first_not_delivered' };
  return { send: false, foldInto: window.detectionId };
}

/**
 * The window after a sighting that was sent: a new one from `now` at the sighting's site and
 * priority, except for another alert of the sighting already sent, which keeps the window
 * and raises its priority when more urgent.
 */
export function windowAfterSend(window: CooldownWindow | null, sighting: Sighting, now: Date, cooldownMs: number): CooldownWindow {
  if (window && window.detectionId === sighting.detectionId) {
    const priority = priorityRank(sighting.priority) > priorityRank(window.priority) ? sighting.priority : window.priority;
    return { ...window, priority, reaching: true };
  }
  return {
    detectionId: sighting.detectionId,
    collectorId: sighting.collectorId,
    priority: sighting.priority,
    until: new Date(now.getTime() + cooldownMs),
    reaching: true,
  };
}
