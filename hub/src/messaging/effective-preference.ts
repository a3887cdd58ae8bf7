/**
 * Which preference applies to an alert of one watchlist on one channel (docs/messaging.md
 * "Preferences"), pure, so the live page decides like the delivery worker's query does:
 * the watchlist's own row decides on/off and, when it sets them, the quiet hours; otherwise
 * the user's default for the channel; no row at all means on, no quiet hours.
 */
import type { QuietHours } from './delivery/quiet-hours.ts';

export interface PreferenceRow {
  watchlist_id: string | null;
  channel: string;
  enabled: boolean;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
  timezone: string;
}

export function effectivePreference(rows: readonly PreferenceRow[], watchlistId: string, channel: string): { enabled: boolean; quiet: QuietHours } {
  const own = rows.find((r) => r.channel === channel && r.watchlist_id === watchlistId);
  const fallback = rows.find((r) => r.channel === channel && r.watchlist_id === null);
  const quietFrom = own?.quiet_hours_start ? own : fallback;
  return {
    enabled: own?.enabled ?? fallback?.enabled ?? true,
    quiet: { start: quietFrom?.quiet_hours_start ?? null, end: quietFrom?.quiet_hours_end ?? null, timeZone: quietFrom?.timezone ?? 'UTC' },
  };
}
