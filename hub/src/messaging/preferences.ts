/**
 * Notification preferences (docs/messaging.md
 * "Preferences"): per channel, per watchlist or as the user's default (`watchlist_id`
 * null), enabled, quiet hours as wall-clock times in an IANA zone. No row means the
 * default: on, no quiet hours, UTC. The zone of the telegram default is also the zone
 * message times are written in.
 */
import { z } from 'zod';
import { writeAudit } from '../platform/audit-writer.ts';
import type { Clock } from '../platform/clock.ts';
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import { isValidTimeZone } from '@alpr/shared/detection/time';

const time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time as HH:MM (24 hours)');

export const preferenceSchema = z
  .object({
    watchlist_id: z.string().uuid().nullable(),
    channel: z.enum(['web', 'telegram', 'push']),
    enabled: z.boolean(),
    quiet_hours_start: time.nullable(),
    quiet_hours_end: time.nullable(),
    timezone: z.string().min(1).max(64).refine(isValidTimeZone, 'not a time zone this hub knows (an IANA name such as Europe/Berlin)'),
  })
  .strict()
  .refine((p) => (p.quiet_hours_start === null) === (p.quiet_hours_end === null), {
    message: 'give both ends of the quiet hours, or neither',
    path: ['quiet_hours_end'],
  });

export type PreferenceInput = z.infer<typeof preferenceSchema>;

export interface Preference extends PreferenceInput {
  watchlist_name: string | null;
  updated_at: string;
}

export async function listPreferences(db: DbSession, userId: string): Promise<Preference[]> {
  const rows = await db.sql<{
    watchlist_id: string | null;
    watchlist_name: string | null;
    channel: 'web' | 'telegram' | 'push';
    enabled: boolean;
    quiet_hours_start: string | null;
    quiet_hours_end: string | null;
    timezone: string;
    updated_at: Date;
  }>(
    `SELECT p.watchlist_id, w.name AS watchlist_name, p.channel, p.enabled, to_char(p.quiet_hours_start, 'HH24:MI') AS quiet_hours_start,
            to_char(p.quiet_hours_end, 'HH24:MI') AS quiet_hours_end, p.timezone, p.updated_at
     FROM notification_preferences p LEFT JOIN watchlists w ON w.id = p.watchlist_id
     WHERE p.user_id = $1 ORDER BY p.watchlist_id NULLS FIRST, w.name, p.channel`,
    [userId],
  );
  return rows.map((r) => ({ ...r, updated_at: new Date(r.updated_at).toISOString() }));
}

/** Creates or replaces one preference; audited. 404 for a watchlist that is not there. */
export async function setPreference(db: DbSession, clock: Clock, userId: string, input: PreferenceInput): Promise<void> {
  const now = clock.now();
  await db.transaction(async (tx) => {
    if (input.watchlist_id) {
      const [list] = await tx.sql(`SELECT 1 FROM watchlists WHERE id = $1 AND deleted_at IS NULL`, [input.watchlist_id]);
      if (!list) throw new HubError('not_found', 'no such watchlist');
    }
    await tx.sql(
      `INSERT INTO notification_preferences (user_id, watchlist_id, channel, enabled, quiet_hours_start, quiet_hours_end, timezone, updated_at)
       VALUES ($1, $2, $3, $4, $5::time, $6::time, $7, $8::timestamptz)
       ON CONFLICT (user_id, watchlist_id, channel) DO UPDATE SET enabled = EXCLUDED.enabled, quiet_hours_start = EXCLUDED.quiet_hours_start,
         quiet_hours_end = EXCLUDED.quiet_hours_end, timezone = EXCLUDED.timezone, updated_at = EXCLUDED.updated_at`,
      [userId, input.watchlist_id, input.channel, input.enabled, input.quiet_hours_start, input.quiet_hours_end, input.timezone, now.toISOString()],
    );
    await writeAudit(tx, { at: now, action: 'notification.preference_set', actor: { userId }, targetType: 'user', targetId: userId, detail: { ...input } });
  });
}

/** Mutes (or with null unmutes) every active chat of the user. */
export async function muteChats(
  db: DbSession,
  clock: Clock,
  userId: string,
  durationMs: number | null,
): Promise<{ chats: number; muted_until: string | null }> {
  const until = durationMs === null ? null : new Date(clock.now().getTime() + durationMs);
  const rows = await db.transaction(async (tx) => {
    const changed = await tx.sql(`UPDATE telegram_links SET muted_until = $2 WHERE user_id = $1 AND is_active RETURNING chat_id`, [
      userId,
      until?.toISOString() ?? null,
    ]);
    await writeAudit(tx, {
      at: clock.now(),
      action: until ? 'telegram.muted' : 'telegram.unmuted',
      actor: { userId },
      targetType: 'user',
      targetId: userId,
      detail: { by: 'web', until: until?.toISOString() ?? null, chats: changed.length },
    });
    return changed;
  });
  return { chats: rows.length, muted_until: until?.toISOString() ?? null };
}
