import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { createHubApp } from '../app.ts';
import { createLog } from '../platform/log.ts';
import { startBotApi } from '../../../scripts/simulators/telegram-bot-api.ts';
import { botApi } from './bot-api.ts';
import { startPolling, type Polling } from './polling.ts';
import {
  NOTIFICATION_PREFERENCES_PATH,
  TELEGRAM_LINK_CODE_PATH,
  TELEGRAM_LINK_PATH,
  TELEGRAM_MUTE_PATH,
  TELEGRAM_UNLINK_PATH,
  TELEGRAM_WEBHOOK_PATH,
  watchlistPartPath,
  WATCHLISTS_PATH,
} from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const sim = await startBotApi();
t.teardown(() => sim.close());
const api = botApi(sim.url, sim.token);
const deps = { db: ctx.deps.db, clock: ctx.clock, log: createLog('silent') };
let polling: Polling | undefined = startPolling(deps, api, { timeoutSeconds: 1 });
t.teardown(() => polling?.stop());
const CHAT = 424242;

async function replyTo(text: string): Promise<string> {
  const before = sim.sent.length;
  await sim.userSays(CHAT, text);
  for (let i = 0; i < 100 && sim.sent.length === before; i++) await sleep(50);
  const reply = sim.sent.at(-1);
  if (sim.sent.length !== before + 1 || !reply) throw new Error(`expected one reply to ${text}, got ${sim.sent.length - before}`);
  return reply.text;
}

async function linkCode(): Promise<string> {
  const res = await send(ctx, operator, 'POST', TELEGRAM_LINK_CODE_PATH, {});
  if (res.status !== 201) throw new Error(`link code ${res.status}`);
  const body = (await res.json()) as { code: string; command: string; expires_at: string };
  return body.code;
}

t.test('linking a chat with a code from the web', async (t) => {
  t.match(await replyTo('/start'), /create a link code on the dashboard/);
  t.match(await replyTo('/link ABCD2345'), /unknown, already used or expired/, 'an unknown code gets an answer, not silence');
  const first = await linkCode();
  const code = await linkCode();
  t.not(first, code);
  t.match(await replyTo(`/link ${first}`), /unknown, already used or expired/, 'a new code ends the previous one');
  t.match(await replyTo(`/link ${code.toLowerCase()}`), /^Linked to user1-operator@example\.test\./);
  t.match(await replyTo(`/link ${code}`), /already used/, 'a code works once');
  const state = (await (await send(ctx, operator, 'GET', TELEGRAM_LINK_PATH)).json()) as { links: Array<{ chat_id: string; is_active: boolean }> };
  t.match(state.links, [{ chat_id: String(CHAT), is_active: true }], 'the web shows the link');
});

t.test('status, mute, unmute, help, unknown commands', async (t) => {
  const list = (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Bot wanted' })).json()) as { id: string };
  await send(ctx, operator, 'POST', watchlistPartPath(list.id, 'subscription'));
  t.match(await replyTo('/status'), /Linked to user1-operator@example\.test\.\nSubscribed watchlists: Bot wanted\.\nNot muted\./);
  // A list that names this chat as a recipient (docs/watchlists.md "Recipients") is said too.
  const gate = (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Gate B nights' })).json()) as { id: string };
  t.equal((await send(ctx, operator, 'PUT', watchlistPartPath(gate.id, 'recipients'), { chats: [String(CHAT)], webhooks: [], mqtt: false })).status, 200);
  t.match(await replyTo('/status'), /Subscribed watchlists: Bot wanted\.\nThis chat is also a recipient of: Gate B nights\.\nNot muted\./);
  t.match(await replyTo('/mute 2h'), /^Muted until /);
  const [link] = await ctx.deps.db.sql<{ muted_until: Date }>('SELECT muted_until FROM telegram_links WHERE chat_id = $1', [CHAT]);
  t.equal(new Date(link!.muted_until).getTime(), ctx.clock.now().getTime() + 2 * 3_600_000, 'muted_until = now + 2 h');
  t.match(await replyTo('/status'), /Muted until/);
  t.match(await replyTo('/mute forever'), /Say how long/);
  t.match(await replyTo('/unmute'), /Unmuted/);
  t.match(await replyTo('/help'), /\/link CODE/);
  t.match(await replyTo('/frobnicate'), /I do not know \/frobnicate/);
  t.match(await replyTo('good morning'), /\/help/);
});

t.test('a restart neither replays nor skips an update', async (t) => {
  await polling?.stop();
  polling = undefined;
  const before = sim.sent.length;
  await sim.userSays(CHAT, '/status');
  await sleep(300);
  t.equal(sim.sent.length, before, 'nothing answers while the hub is down');
  polling = startPolling(deps, api, { timeoutSeconds: 1 });
  for (let i = 0; i < 100 && sim.sent.length === before; i++) await sleep(50);
  await sleep(1500);
  t.equal(sim.sent.length, before + 1, 'the update that came while down is answered once, earlier ones are not replayed');
});

t.test('codes expire after 10 minutes; unlinking from the bot and from the web', async (t) => {
  const code = await linkCode();
  ctx.clock.advance(10 * 60_000 + 1);
  t.match(await replyTo(`/link ${code}`), /expired/);
  t.match(await replyTo('/unlink'), /^Unlinked/);
  t.match(await replyTo('/status'), /not linked/);
  t.match(await replyTo(`/link ${await linkCode()}`), /^Linked/);
  const res = await send(ctx, operator, 'POST', TELEGRAM_UNLINK_PATH, {});
  t.same(await res.json(), { unlinked: 1 });
  t.match(await replyTo('/status'), /not linked/, 'unlinked from the web');
});

t.test('link codes are rate limited per user', async (t) => {
  let status = 0;
  for (let i = 0; i < 6 && status !== 429; i++) status = (await send(ctx, operator, 'POST', TELEGRAM_LINK_CODE_PATH, {})).status;
  t.equal(status, 429);
  ctx.clock.advance(11 * 60_000);
  t.equal((await send(ctx, operator, 'POST', TELEGRAM_LINK_CODE_PATH, {})).status, 201);
  t.equal((await send(ctx, null, 'POST', TELEGRAM_LINK_CODE_PATH, {})).status, 401);
});

t.test('the webhook: secret checked, reply in the answer, a retried update applied once', async (t) => {
  const secret = 'webhook-secret-0123456789';
  const app = createHubApp({
    ...ctx.deps,
    config: {
      ...ctx.deps.config,
      telegram: { token: sim.token, apiUrl: sim.url, mode: 'webhook', webhookSecret: secret, aggregateMs: 5000, cooldownMs: 600_000 },
    },
  });
  const post = (body: unknown, header?: string) =>
    app.request(TELEGRAM_WEBHOOK_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(header ? { 'X-Telegram-Bot-Api-Secret-Token': header } : {}) },
      body: JSON.stringify(body),
    });
  const update = { update_id: 900001, message: { message_id: 1, chat: { id: CHAT, type: 'private' }, date: 0, text: '/help' } };
  t.equal((await post(update)).status, 401, 'no secret');
  t.equal((await post(update, 'webhook-secret-0123456788')).status, 401, 'wrong secret');
  const res = await post(update, secret);
  t.equal(res.status, 200);
  t.match(await res.json(), { method: 'sendMessage', chat_id: CHAT, text: /\/link CODE/ });
  t.same(await (await post(update, secret)).json(), {}, 'the same update again: applied once');
  t.equal((await post({ update_id: 'x' }, secret)).status, 400);
  t.equal(
    (await ctx.app.request(TELEGRAM_WEBHOOK_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
    404,
    'a hub that polls has no webhook',
  );
});

t.test('preferences over HTTP: defaults, per watchlist, quiet hours validated; mute from the web', async (t) => {
  const empty = (await (await send(ctx, operator, 'GET', NOTIFICATION_PREFERENCES_PATH)).json()) as { preferences: unknown[] };
  t.same(empty.preferences, [], 'no rows: the defaults apply');
  const list = (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Prefs list' })).json()) as { id: string };
  const base = { watchlist_id: null, channel: 'telegram', enabled: true, quiet_hours_start: '22:00', quiet_hours_end: '07:00', timezone: 'Europe/Berlin' };
  t.equal((await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, base)).status, 200);
  const res = await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, {
    ...base,
    watchlist_id: list.id,
    enabled: false,
    quiet_hours_start: null,
    quiet_hours_end: null,
  });
  const body = (await res.json()) as { preferences: Array<Record<string, unknown>> };
  t.match(body.preferences, [
    { watchlist_id: null, channel: 'telegram', enabled: true, quiet_hours_start: '22:00', quiet_hours_end: '07:00', timezone: 'Europe/Berlin' },
    { watchlist_id: list.id, watchlist_name: 'Prefs list', enabled: false, quiet_hours_start: null },
  ]);
  t.equal(
    (await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, { ...base, quiet_hours_start: '22:00', quiet_hours_end: null })).status,
    400,
    'one end of the quiet hours',
  );
  t.equal((await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, { ...base, quiet_hours_start: '24:00' })).status, 400, 'not a time');
  t.equal((await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, { ...base, timezone: 'Mars/Olympus' })).status, 400, 'not a zone');
  t.equal((await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, { ...base, channel: 'sms' })).status, 400, 'not a channel');
  t.equal((await send(ctx, operator, 'PUT', NOTIFICATION_PREFERENCES_PATH, { ...base, watchlist_id: '00000000-0000-4000-8000-000000000000' })).status, 404);
  t.equal((await send(ctx, null, 'GET', NOTIFICATION_PREFERENCES_PATH)).status, 401);

  t.match(await replyTo(`/link ${await linkCode()}`), /^Linked to/);
  const muted = (await (await send(ctx, operator, 'POST', TELEGRAM_MUTE_PATH, { duration: '30m' })).json()) as { chats: number; muted_until: string };
  t.equal(muted.chats, 1);
  t.equal(new Date(muted.muted_until).getTime(), ctx.clock.now().getTime() + 30 * 60_000);
  t.match(await replyTo('/status'), /Muted until/, 'the chat sees the mute set on the web');
  t.equal((await send(ctx, operator, 'POST', TELEGRAM_MUTE_PATH, { duration: 'forever' })).status, 400);
  t.same(await (await send(ctx, operator, 'POST', TELEGRAM_MUTE_PATH, { duration: null })).json(), { chats: 1, muted_until: null });
});
