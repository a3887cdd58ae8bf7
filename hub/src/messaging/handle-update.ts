import { writeAudit } from '../platform/audit-writer.ts';
import type { DbSession } from '../db/session.ts';
import { HELP_TEXT, normalizeLinkCode, parseCommand, parseDuration } from './bot-commands.ts';

/**
 * One update from the bot platform (a chat message), applied inside the caller's transaction:
 * the commands of docs/messaging.md. Returns the
 * reply for that chat; every message gets one (unknown commands and codes included), never
 * silence. Updates that are not private text messages are ignored.
 */
export interface TelegramUpdate {
  update_id: number;
  message?: { chat?: { id?: number; type?: string }; text?: string };
}

export interface Reply {
  chatId: number;
  text: string;
}

const utc = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export async function applyUpdate(tx: DbSession, now: Date, update: TelegramUpdate): Promise<Reply | undefined> {
  const chatId = update.message?.chat?.id;
  const text = update.message?.text;
  if (typeof chatId !== 'number' || !Number.isSafeInteger(chatId) || typeof text !== 'string') return undefined;
  const reply = (t: string): Reply => ({ chatId, text: t });
  const [link] = await tx.sql<{ user_id: string; email: string; is_active: boolean; muted_until: Date | null }>(
    `SELECT l.user_id, u.email, l.is_active, l.muted_until FROM telegram_links l JOIN users u ON u.id = l.user_id WHERE l.chat_id = $1 FOR UPDATE OF l`,
    [chatId],
  );
  const linked = link?.is_active ? link : undefined;
  const parsed = parseCommand(text);
  if (parsed.kind === 'text') return reply('Send /help to see what I can do.');
  if (parsed.kind === 'unknown_command') return reply(`I do not know /${parsed.name}.\n\n${HELP_TEXT}`);
  switch (parsed.name) {
    case 'start':
      return reply(
        linked
          ? `Hello again. Alerts for ${linked.email} arrive here.`
          : `Hello. To receive watchlist alerts here, create a link code on the dashboard and send /link CODE.\n\n${HELP_TEXT}`,
      );
    case 'help':
      return reply(HELP_TEXT);
    case 'link': {
      const code = normalizeLinkCode(parsed.arg);
      if (!code) return reply('A link code is 8 letters and digits, e.g. /link ABCD2345. Create one on the dashboard (Notifications).');
      const [found] = await tx.sql<{ id: string; user_id: string; email: string }>(
        `SELECT c.id, c.user_id, u.email FROM telegram_link_codes c JOIN users u ON u.id = c.user_id
          WHERE upper(c.code) = upper($1) AND c.used_at IS NULL AND c.expires_at > $2 AND u.is_active FOR UPDATE OF c`,
        [code, now],
      );
      if (!found) return reply('That code is unknown, already used or expired (codes last 10 minutes). Create a new one on the dashboard.');
      await tx.sql('UPDATE telegram_link_codes SET used_at = $2 WHERE id = $1', [found.id, now]);
      await tx.sql(
        `INSERT INTO telegram_links (user_id, chat_id, linked_at, is_active) VALUES ($1, $2, $3, true)
         ON CONFLICT (chat_id) DO UPDATE SET user_id = EXCLUDED.user_id, linked_at = EXCLUDED.linked_at, is_active = true, muted_until = NULL`,
        [found.user_id, chatId, now],
      );
      await writeAudit(tx, { at: now, action: 'telegram.linked', actor: { userId: found.user_id }, targetType: 'telegram_chat', targetId: String(chatId) });
      return reply(`Linked to ${found.email}. Alerts of the watchlists you subscribe to arrive here. /status shows them; /mute 2h pauses them.`);
    }
    case 'unlink':
      if (!linked) return reply('This chat is not linked. /link CODE links it.');
      await tx.sql('UPDATE telegram_links SET is_active = false WHERE chat_id = $1', [chatId]);
      await writeAudit(tx, {
        at: now,
        action: 'telegram.unlinked',
        actor: { userId: linked.user_id },
        targetType: 'telegram_chat',
        targetId: String(chatId),
        detail: { by: 'bot' },
      });
      return reply('Unlinked: no more alerts here. The dashboard shows this too. /link CODE links again.');
    case 'status': {
      if (!linked) return reply('This chat is not linked. Create a link code on the dashboard and send /link CODE.');
      const lists = await tx.sql<{ name: string }>(
        `SELECT w.name FROM subscriptions s JOIN watchlists w ON w.id = s.watchlist_id WHERE s.user_id = $1 AND w.deleted_at IS NULL ORDER BY w.name`,
        [linked.user_id],
      );
      // Lists that name this very chat as a recipient (docs/watchlists.md "Recipients"): a group
      // chat hears them though nobody in it subscribed.
      const named = await tx.sql<{ name: string }>(
        `SELECT w.name FROM watchlist_recipient_chats r JOIN watchlists w ON w.id = r.watchlist_id WHERE r.chat_id = $1 AND w.deleted_at IS NULL ORDER BY w.name`,
        [chatId],
      );
      const muted = linked.muted_until && new Date(linked.muted_until) > now ? `Muted until ${utc(new Date(linked.muted_until))}.` : 'Not muted.';
      const recipientOf = named.length === 0 ? '' : `\nThis chat is also a recipient of: ${named.map((l) => l.name).join(', ')}.`;
      return reply(
        `Linked to ${linked.email}.\nSubscribed watchlists: ${lists.length === 0 ? 'none (subscribe on the dashboard)' : lists.map((l) => l.name).join(', ')}.${recipientOf}\n${muted}`,
      );
    }
    case 'mute': {
      if (!linked) return reply('This chat is not linked. /link CODE links it.');
      const ms = parseDuration(parsed.arg);
      if (ms === undefined) return reply('Say how long: /mute 30m, /mute 2h or /mute 1d (at most 30 days).');
      const until = new Date(now.getTime() + ms);
      await tx.sql('UPDATE telegram_links SET muted_until = $2 WHERE chat_id = $1', [chatId, until]);
      return reply(`Muted until ${utc(until)}. Alerts meanwhile stay on the dashboard. /unmute ends it.`);
    }
    case 'unmute':
      if (!linked) return reply('This chat is not linked. /link CODE links it.');
      await tx.sql('UPDATE telegram_links SET muted_until = NULL WHERE chat_id = $1', [chatId]);
      return reply('Unmuted: alerts arrive here again.');
  }
}

/**
 * An update that arrived on the webhook, applied once: the last applied update id is kept
 * under a row lock, so a platform retry of an update already applied is skipped.
 */
export async function applyWebhookUpdate(db: DbSession, now: Date, update: TelegramUpdate): Promise<Reply | undefined> {
  return db.transaction(async (tx) => {
    const [last] = await tx.sql<{ value: string }>(`SELECT value FROM telegram_bot_state WHERE key = 'webhook_last_update' FOR UPDATE`);
    if (last && Number(last.value) >= update.update_id) return undefined;
    const answer = await applyUpdate(tx, now, update);
    await tx.sql(
      `INSERT INTO telegram_bot_state (key, value, updated_at) VALUES ('webhook_last_update', $1, now())
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [String(update.update_id)],
    );
    return answer;
  });
}
