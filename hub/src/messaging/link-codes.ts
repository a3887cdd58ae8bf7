import { randomInt } from 'node:crypto';
import { writeAudit } from '../platform/audit-writer.ts';
import type { Clock } from '../platform/clock.ts';
import type { DbSession } from '../db/session.ts';

/**
 * Link codes (docs/messaging.md): 8 characters, valid 10 minutes, one active per
 * user (a new one ends the previous), used once by the bot's `/link`. Letters and digits
 * that cannot be misread (no 0/O, 1/I/L): 31 symbols, ~40 bits, guessed by nobody in 10
 * minutes at the bot's rate.
 */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const LINK_CODE_TTL_MS = 10 * 60_000;

export interface LinkCode {
  code: string;
  expiresAt: Date;
}

export function newLinkCode(): string {
  return Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

export async function createLinkCode(deps: { db: DbSession; clock: Clock }, userId: string): Promise<LinkCode> {
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + LINK_CODE_TTL_MS);
  return deps.db.transaction(async (tx) => {
    await tx.sql('UPDATE telegram_link_codes SET expires_at = $2 WHERE user_id = $1 AND used_at IS NULL AND expires_at > $2', [userId, now]);
    for (;;) {
      const code = newLinkCode();
      const rows = await tx.sql(
        `INSERT INTO telegram_link_codes (user_id, code, created_at, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (code) DO NOTHING RETURNING id`,
        [userId, code, now, expiresAt],
      );
      if (rows.length === 1) {
        await writeAudit(tx, {
          at: now,
          action: 'telegram.link_code_created',
          actor: { userId },
          targetType: 'user',
          targetId: userId,
          detail: { expires_at: expiresAt.toISOString() },
        });
        return { code, expiresAt };
      }
    }
  });
}

export interface LinkState {
  links: Array<{ chat_id: string; linked_at: string; is_active: boolean; muted_until: string | null; last_delivery_at: string | null }>;
  /** The unused code still valid, if any (the code itself is shown only when created). */
  pending_code_expires_at: string | null;
}

export async function linkState(deps: { db: DbSession; clock: Clock }, userId: string): Promise<LinkState> {
  const links = await deps.db.sql<{ chat_id: string; linked_at: Date; is_active: boolean; muted_until: Date | null; last_delivery_at: Date | null }>(
    'SELECT chat_id::text AS chat_id, linked_at, is_active, muted_until, last_delivery_at FROM telegram_links WHERE user_id = $1 ORDER BY telegram_links.linked_at',
    [userId],
  );
  const [pending] = await deps.db.sql<{ expires_at: Date }>(
    'SELECT expires_at FROM telegram_link_codes WHERE user_id = $1 AND used_at IS NULL AND expires_at > $2 ORDER BY telegram_link_codes.expires_at DESC LIMIT 1',
    [userId, deps.clock.now()],
  );
  const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());
  return {
    links: links.map((l) => ({
      chat_id: l.chat_id,
      linked_at: new Date(l.linked_at).toISOString(),
      is_active: l.is_active,
      muted_until: iso(l.muted_until),
      last_delivery_at: iso(l.last_delivery_at),
    })),
    pending_code_expires_at: pending ? new Date(pending.expires_at).toISOString() : null,
  };
}

/** Unlinks every chat of `userId` from the web page (like /unlink in a chat), audited; answers the chats unlinked. */
export async function unlinkFromWeb(db: DbSession, userId: string, now: Date): Promise<unknown[]> {
  return db.transaction(async (tx) => {
    const changed = await tx.sql('UPDATE telegram_links SET is_active = false WHERE user_id = $1 AND is_active RETURNING chat_id', [userId]);
    if (changed.length > 0)
      await writeAudit(tx, {
        at: now,
        action: 'telegram.unlinked',
        actor: { userId },
        targetType: 'user',
        targetId: userId,
        detail: { by: 'web', chats: changed.length },
      });
    return changed;
  });
}
