/**
 * Recipients per list, beyond its subscribers (docs/watchlists.md "Recipients"): bot chats the
 * bot already knows, webhook targets, and the list's own MQTT topic. The delivery paths read
 * them in the transaction that raises an alert (messaging/delivery/enqueue.ts,
 * webhooks/enqueue.ts) or when publishing (mqtt/run.ts), so a change holds for the next alert
 * without any cache.
 *
 * Who may name what: webhook targets are admins' (only admins list or configure them), so only
 * an admin changes a list's webhooks; a chat belongs to the account it is linked to, so an
 * operator adds or removes only chats linked to their own account and leaves the others as
 * they are, while an admin may name any active chat.
 */
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';
import type { WatchlistActor, WatchlistContext } from './context.ts';
import { notifyWatchlistChanged } from './notify.ts';
import { recipientsBodySchema, type RecipientsBody } from './recipients-schema.ts';
import { audit, findWatchlist } from './watchlists.ts';

export interface RecipientChat {
  chatId: string;
  ownerId: string;
  ownerEmail: string;
  isActive: boolean;
}

export interface RecipientWebhook {
  id: string;
  name: string;
  enabled: boolean;
}

export interface Recipients {
  watchlistId: string;
  chats: RecipientChat[];
  webhooks: RecipientWebhook[];
  mqtt: boolean;
}

export interface RecipientsActor extends WatchlistActor {
  role: 'admin' | 'operator' | 'viewer';
}

async function readRecipients(db: DbSession, watchlistId: string, mqtt: boolean): Promise<Recipients> {
  const chats = await db.sql<{ chat_id: string; user_id: string; email: string; is_active: boolean }>(
    `SELECT r.chat_id::text AS chat_id, l.user_id::text AS user_id, u.email, l.is_active
     FROM watchlist_recipient_chats r JOIN telegram_links l ON l.chat_id = r.chat_id JOIN users u ON u.id = l.user_id
     WHERE r.watchlist_id = $1::uuid ORDER BY r.chat_id`,
    [watchlistId],
  );
  const webhooks = await db.sql<{ id: string; name: string; enabled: boolean }>(
    `SELECT t.id::text AS id, t.name, t.enabled FROM watchlist_recipient_webhooks r JOIN webhook_targets t ON t.id = r.target_id
     WHERE r.watchlist_id = $1::uuid ORDER BY t.name, t.id`,
    [watchlistId],
  );
  return {
    watchlistId,
    chats: chats.map((c) => ({ chatId: c.chat_id, ownerId: c.user_id, ownerEmail: c.email, isActive: c.is_active })),
    webhooks: webhooks.map((w) => ({ id: w.id, name: w.name, enabled: w.enabled })),
    mqtt,
  };
}

export async function getRecipients(ctx: WatchlistContext, watchlistId: string): Promise<Recipients> {
  const list = await findWatchlist(ctx.db, watchlistId);
  return readRecipients(ctx.db, list.id, list.mqttPublish);
}

const difference = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));

/** Replaces the list's recipients whole; audited as `watchlist.recipients_set`. */
export async function setRecipients(ctx: WatchlistContext, actor: RecipientsActor, watchlistId: string, body: RecipientsBody): Promise<Recipients> {
  const chats = [...new Set(body.chats)];
  const webhooks = [...new Set(body.webhooks.map((w) => w.toLowerCase()))];
  return ctx.db.transaction(async (tx) => {
    const list = await findWatchlist(tx, watchlistId, true);
    if (list.kind === 'ignore' && (chats.length > 0 || webhooks.length > 0 || body.mqtt))
      throw new HubError('bad_request', 'recipients: an ignore list raises no alerts, so it has no recipients');
    const before = await readRecipients(tx, list.id, list.mqttPublish);

    const known = await tx.sql<{ chat_id: string; user_id: string; is_active: boolean }>(
      `SELECT chat_id::text AS chat_id, user_id::text AS user_id, is_active FROM telegram_links
       WHERE chat_id IN (SELECT value::bigint FROM json_array_elements_text($1::json))`,
      [JSON.stringify(chats)],
    );
    const byChat = new Map(known.map((k) => [k.chat_id, k]));
    const beforeChats = before.chats.map((c) => c.chatId);
    for (const chat of difference(chats, beforeChats)) {
      const link = byChat.get(chat);
      if (!link || !link.is_active) throw new HubError('bad_request', `chats: the bot knows no linked chat ${chat} (link it with /link first)`);
      if (actor.role !== 'admin' && link.user_id !== actor.userId)
        throw new HubError('forbidden', `chats: chat ${chat} is linked to another account; only an admin may name it`);
    }
    if (actor.role !== 'admin') {
      const removed = before.chats.find((c) => !chats.includes(c.chatId) && c.ownerId !== actor.userId);
      if (removed) throw new HubError('forbidden', `chats: chat ${removed.chatId} is linked to another account; only an admin may remove it`);
    }

    const beforeHooks = before.webhooks.map((w) => w.id);
    const hooksChanged = difference(webhooks, beforeHooks).length > 0 || difference(beforeHooks, webhooks).length > 0;
    if (hooksChanged && actor.role !== 'admin') throw new HubError('forbidden', 'webhooks: only an admin names the webhook targets of a list');
    if (webhooks.length > 0) {
      const found = await tx.sql<{ id: string }>(
        `SELECT id::text AS id FROM webhook_targets WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
        [JSON.stringify(webhooks)],
      );
      const have = new Set(found.map((r) => r.id));
      const bad = webhooks.find((id) => !have.has(id));
      if (bad) throw new HubError('bad_request', `webhooks: no webhook target ${bad}`);
    }

    await tx.sql(
      `DELETE FROM watchlist_recipient_chats WHERE watchlist_id = $1::uuid
       AND chat_id NOT IN (SELECT value::bigint FROM json_array_elements_text($2::json))`,
      [list.id, JSON.stringify(chats)],
    );
    await tx.sql(
      `INSERT INTO watchlist_recipient_chats (watchlist_id, chat_id, added_by, added_at)
       SELECT $1::uuid, value::bigint, $3::uuid, $4::timestamptz FROM json_array_elements_text($2::json) ON CONFLICT DO NOTHING`,
      [list.id, JSON.stringify(chats), actor.userId, ctx.clock.now().toISOString()],
    );
    await tx.sql(
      `DELETE FROM watchlist_recipient_webhooks WHERE watchlist_id = $1::uuid
       AND target_id NOT IN (SELECT value::uuid FROM json_array_elements_text($2::json))`,
      [list.id, JSON.stringify(webhooks)],
    );
    await tx.sql(
      `INSERT INTO watchlist_recipient_webhooks (watchlist_id, target_id, added_by, added_at)
       SELECT $1::uuid, value::uuid, $3::uuid, $4::timestamptz FROM json_array_elements_text($2::json) ON CONFLICT DO NOTHING`,
      [list.id, JSON.stringify(webhooks), actor.userId, ctx.clock.now().toISOString()],
    );
    if (body.mqtt !== list.mqttPublish) {
      await tx.sql('UPDATE watchlists SET mqtt_publish = $2, updated_at = $3::timestamptz WHERE id = $1::uuid', [
        list.id,
        body.mqtt,
        ctx.clock.now().toISOString(),
      ]);
    }
    await audit(tx, ctx, actor, 'watchlist.recipients_set', 'watchlist', list.id, {
      chats,
      webhooks,
      mqtt: body.mqtt,
      before: { chats: beforeChats, webhooks: beforeHooks, mqtt: before.mqtt },
    });
    await notifyWatchlistChanged(tx, list.id);
    return readRecipients(tx, list.id, body.mqtt);
  });
}

/** The recipients as the PUT body (and the CSV's `list_recipients`); undefined when the list has none. */
export async function recipientsBody(db: DbSession, watchlistId: string): Promise<RecipientsBody | undefined> {
  const list = await findWatchlist(db, watchlistId);
  const r = await readRecipients(db, list.id, list.mqttPublish);
  if (r.chats.length === 0 && r.webhooks.length === 0 && !r.mqtt) return undefined;
  return { chats: r.chats.map((c) => c.chatId), webhooks: r.webhooks.map((w) => w.id), mqtt: r.mqtt };
}

/** What an import left out: ids this hub does not know (a file from another hub). */
export interface DroppedRecipients {
  chats: string[];
  webhooks: string[];
}

/**
 * The CSV's `list_recipients` (docs/watchlists.md "Import and export"), inside the import's
 * transaction: checked like the PUT body (400 naming the column), chats and webhook targets
 * this hub does not know are left out and reported (a file exported on another hub names its
 * ids), and the rest replaces the list's recipients with the importer's rights, as a PUT would.
 */
export async function importRecipients(
  tx: DbSession,
  ctx: WatchlistContext,
  actor: RecipientsActor,
  watchlistId: string,
  json: string,
): Promise<DroppedRecipients> {
  let raw: unknown;
  try {
    raw = JSON.parse(json === '' ? '{"chats":[],"webhooks":[],"mqtt":false}' : json);
  } catch {
    throw new HubError('bad_request', 'list_recipients is not JSON (the recipients as PUT …/recipients takes them)');
  }
  const parsed = recipientsBodySchema.safeParse(raw);
  if (!parsed.success)
    throw new HubError(
      'bad_request',
      `list_recipients: ${parsed.error.issues
        .map((i) => `${i.path.join('.')} ${i.message}`.trim())
        .join('; ')
        .slice(0, 300)}`,
    );
  const body = parsed.data;
  const list = await findWatchlist(tx, watchlistId);
  const named = await readRecipients(tx, list.id, list.mqttPublish);
  const chats = await tx.sql<{ chat_id: string }>(
    `SELECT chat_id::text AS chat_id FROM telegram_links WHERE is_active AND chat_id IN (SELECT value::bigint FROM json_array_elements_text($1::json))`,
    [JSON.stringify(body.chats)],
  );
  const hooks = await tx.sql<{ id: string }>(
    `SELECT id::text AS id FROM webhook_targets WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
    [JSON.stringify(body.webhooks)],
  );
  const knownChats = new Set([...chats.map((c) => c.chat_id), ...named.chats.map((c) => c.chatId)]);
  const knownHooks = new Set(hooks.map((h) => h.id));
  const dropped = { chats: body.chats.filter((c) => !knownChats.has(c)), webhooks: body.webhooks.filter((w) => !knownHooks.has(w.toLowerCase())) };
  await setRecipients({ ...ctx, db: tx }, actor, watchlistId, {
    chats: body.chats.filter((c) => knownChats.has(c)),
    webhooks: body.webhooks.filter((w) => knownHooks.has(w.toLowerCase())),
    mqtt: body.mqtt,
  });
  return dropped;
}

/** The answer of GET and PUT `…/recipients`. */
export function presentRecipients(r: Recipients, viewerId: string) {
  return {
    watchlist_id: r.watchlistId,
    chats: r.chats.map((c) => ({ chat_id: c.chatId, owner: { id: c.ownerId, email: c.ownerEmail }, is_active: c.isActive, mine: c.ownerId === viewerId })),
    webhooks: r.webhooks.map((w) => ({ id: w.id, name: w.name, enabled: w.enabled })),
    mqtt: r.mqtt,
  };
}
