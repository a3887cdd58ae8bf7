/**
 * Who gets an alert on the bot, decided when the alert is raised (docs/messaging.md
 * "Who gets a message"), pure: a subscriber with an active linked chat whose telegram
 * preference is enabled (the watchlist's own row, else the user's default, else on; merged
 * by effective-preference.ts, as for the live page). Muted
 * chats and quiet hours still get a queue item, `suppressed` with the reason, so the
 * dashboard can say why a phone stayed silent; the alert itself is stored and shown on the
 * web either way. The per-plate cooldown comes afterwards (fold.ts), against its row in the
 * database.
 */
import { inQuietHours, type QuietHours } from './quiet-hours.ts';

export interface Candidate {
  alertId: string;
  userId: string;
  chatId: string;
  plate: string;
  detectionId: string;
  mutedUntil: Date | null;
  /** The effective telegram preference (effective-preference.ts). */
  enabled: boolean;
  quiet: QuietHours;
}

export type Verdict = { send: true } | { send: false; reason: 'muted' | 'quiet_hours' } | { skip: true };

export function verdictFor(c: Candidate, now: Date): Verdict {
  if (!c.enabled) return { skip: true };
  if (c.mutedUntil && c.mutedUntil.getTime() > now.getTime()) return { send: false, reason: 'muted' };
  if (inQuietHours(now, c.quiet)) return { send: false, reason: 'quiet_hours' };
  return { send: true };
}
