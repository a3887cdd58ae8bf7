/**
 * A list's recipients hear its alerts (docs/watchlists.md "Recipients"), over real parts: the
 * batch upload of a real hub, the real alert worker with the bot's and the webhooks' raising
 * hooks, the bot's delivery worker against the Bot API simulator, and the webhook worker
 * against a loopback receiver that checks signatures. No list here has a subscriber unless
 * the test says so.
 */
import t from 'tap';
import { startBotApi } from '../../../scripts/simulators/telegram-bot-api.ts';
import { createAlertHooks } from '../alerts/hooks.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { someUser, uploadPlates } from '../alerts/alerts.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { botApi } from '../messaging/bot-api.ts';
import { queueDeliveriesOnRaise } from '../messaging/delivery/enqueue.ts';
import { createDeliveryWorker } from '../messaging/delivery/worker.ts';
import { createLog } from '../platform/log.ts';
import { createSite, setCollectorSite } from '../sites/manage.ts';
import { setUserSites } from '../sites/user-sites.ts';
import { queueWebhooksOnRaise } from '../webhooks/enqueue.ts';
import { createTarget } from '../webhooks/targets.ts';
import { startReceiver } from '../webhooks/webhooks.test-helper.ts';
import { createWebhookWorker } from '../webhooks/worker.ts';
import { createWatchlistCache } from './cache.ts';
import { addEntry } from './entries.ts';
import { setRecipients } from './recipients.ts';
import { subscribe } from './subscriptions.ts';
import { createWatchlist } from './watchlists.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const sim = await startBotApi();
t.teardown(() => sim.close());
const receiver = await startReceiver();
t.teardown(() => receiver.close());
const clock = movableClock(new Date());
const log = createLog('silent');
const ctx = { db, clock, log, config: hub.deps.config };
const WINDOW = 5000;

const cache = createWatchlistCache(ctx);
const hooks = createAlertHooks();
queueDeliveriesOnRaise(hooks, { cooldownMs: 0 });
queueWebhooksOnRaise(hooks);
const alertWorker = createAlertWorker(ctx, cache, { hooks });
const botWorker = createDeliveryWorker(
  { db, clock, log, api: botApi(sim.url, sim.token), image: (sha) => hub.deps.images.get(sha) },
  { windowMs: WINDOW, publicUrl: 'https://hub.example.test', lockTimeoutMs: 30_000 },
);
const hookWorker = createWebhookWorker(ctx);

// The test hub's collector is at site "Gate B". An admin owns a group chat; an operator who
// sees only "Gate A" owns a chat of their own; another operator sees "Gate B".
const gateA = await createSite(db, { name: 'Gate A' });
const gateB = await createSite(db, { name: 'Gate B' });
await setCollectorSite(db, hub.collectorId, gateB.id);
const adminId = await someUser(hub.deps);
await db.sql(`UPDATE users SET role = 'admin' WHERE id = $1`, [adminId]);
const outsider = await someUser(hub.deps);
await setUserSites(db, outsider, { all_sites: false, site_ids: [gateA.id], group_ids: [] });
const insider = await someUser(hub.deps);
await setUserSites(db, insider, { all_sites: false, site_ids: [gateB.id], group_ids: [] });
const GROUP = -1009001;
const OUTSIDER_CHAT = 9002;
const INSIDER_CHAT = 9003;
for (const [userId, chat] of [
  [adminId, GROUP],
  [outsider, OUTSIDER_CHAT],
  [insider, INSIDER_CHAT],
] as const)
  await db.sql(`INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, $2)`, [userId, chat]);
const actorOf = (userId: string, role: 'admin' | 'operator') => ({ userId, ip: null, userAgent: null, role });
const admin = actorOf(adminId, 'admin');

// A target that hears only health events, whose filter names another list: left to itself it
// would never hear these alerts.
const { row: target, secret } = await createTarget(ctx, {
  name: 'Barrier controller',
  url: receiver.url,
  events: ['health'],
  filter: { watchlist_id: '00000000-0000-4000-8000-000000000000' },
  enabled: true,
});
receiver.secret = secret;

const list = await createWatchlist(ctx, admin, { name: 'Night watch', priority: 'high' });
const other = await createWatchlist(ctx, admin, { name: 'Other list', priority: 'low' });
for (const plate of ['RCP0001', 'RCP0002', 'RCP0003']) await addEntry(ctx, admin, list.id, { plate });
await addEntry(ctx, admin, other.id, { plate: 'OTH0001' });
cache.invalidate();

async function raise(plates: string[]): Promise<void> {
  // A 202 (stored, with backpressure advice) is success: uploadPlates takes it as a collector does.
  await uploadPlates(hub, plates);
  while ((await alertWorker.runOnce()) > 0) {
    /* drain */
  }
}
async function deliverBot(): Promise<void> {
  clock.advance(WINDOW);
  await botWorker.runOnce();
}
const sentTo = (chat: number) => sim.sent.filter((m) => m.chatId === chat);

t.test('a recipient chat and a recipient webhook hear the list with no subscriber', async (t) => {
  await setRecipients(ctx, admin, list.id, { chats: [String(GROUP)], webhooks: [target.id], mqtt: false });
  await raise(['RCP0001', 'OTH0001']);
  await deliverBot();
  t.equal(sentTo(GROUP).length, 1, 'one message in the group chat');
  t.match(sentTo(GROUP)[0]?.text, /RCP0001 on Night watch \(high\)/);
  t.notMatch(sentTo(GROUP)[0]?.text, /OTH0001/, 'not the other list’s alert');

  t.equal(await hookWorker.runOnce(), 1, 'one webhook delivery: the list’s alert, not the other list’s');
  await receiver.waitFor(1);
  const [got] = receiver.received;
  t.equal(got?.verified, true, 'signed');
  t.match(got?.body, { type: 'alert.raised', data: { watchlist: { id: list.id, name: 'Night watch' }, plate: { text: 'RCP0001' } } });
});

t.test('a user-owned recipient outside the read’s site hears nothing; one inside does', async (t) => {
  await setRecipients(ctx, actorOf(outsider, 'operator'), list.id, { chats: [String(GROUP), String(OUTSIDER_CHAT)], webhooks: [target.id], mqtt: false });
  await setRecipients(ctx, actorOf(insider, 'operator'), list.id, {
    chats: [String(GROUP), String(OUTSIDER_CHAT), String(INSIDER_CHAT)],
    webhooks: [target.id],
    mqtt: false,
  });
  const before = sim.sent.length;
  await raise(['RCP0002']);
  const queued = await db.sql<{ chat_id: string }>(
    `SELECT q.chat_id::text AS chat_id FROM notification_queue q JOIN alerts a ON a.id = q.alert_id
     JOIN detections d ON d.id = a.detection_id WHERE d.plate_number = 'RCP0002' ORDER BY q.chat_id`,
  );
  t.same(
    queued.map((r) => Number(r.chat_id)),
    [GROUP, INSIDER_CHAT],
    'queued for the admin’s group and the Gate B operator; the Gate A operator’s chat gets no item at all',
  );
  await deliverBot();
  t.equal(sim.sent.length - before, 2);
  t.equal(sentTo(OUTSIDER_CHAT).length, 0, 'the operator who sees only Gate A hears nothing of a Gate B read');
  t.equal(sentTo(INSIDER_CHAT).length, 1);
});

t.test('a chat that is both a subscriber’s and a recipient gets the alert once; its owner’s preferences do not silence it', async (t) => {
  await subscribe(ctx, { userId: insider, ip: null, userAgent: null }, list.id);
  await db.sql(`INSERT INTO notification_preferences (user_id, channel, enabled) VALUES ($1, 'telegram', false)`, [insider]);
  const before = sentTo(INSIDER_CHAT).length;
  await raise(['RCP0003']);
  const items = await db.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM notification_queue q JOIN alerts a ON a.id = q.alert_id
     JOIN detections d ON d.id = a.detection_id WHERE d.plate_number = 'RCP0003' AND q.chat_id = $1`,
    [INSIDER_CHAT],
  );
  t.equal(items[0]?.n, 1, 'one queue item for the chat');
  await deliverBot();
  t.equal(sentTo(INSIDER_CHAT).length - before, 1, 'one message');

  // Taken off the recipients, the chat is a subscriber's again and its owner's "off" holds.
  await setRecipients(ctx, admin, list.id, { chats: [String(GROUP)], webhooks: [target.id], mqtt: false });
  await addEntry(ctx, admin, list.id, { plate: 'RCP0004' });
  cache.invalidate();
  await raise(['RCP0004']);
  await deliverBot();
  t.equal(sentTo(INSIDER_CHAT).length - before, 1, 'no message: the owner switched the bot off for their subscriptions');
  t.equal(sentTo(GROUP).filter((m) => /RCP0004/.test(m.text ?? '')).length, 1, 'the group still hears it');
});

t.test('without the recipient, the webhook hears the list no more; its own filter decides again', async (t) => {
  await setRecipients(ctx, admin, list.id, { chats: [], webhooks: [], mqtt: false });
  const deliveries = async () => (await db.sql<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries')).map((r) => r.n)[0];
  const before = await deliveries();
  await addEntry(ctx, admin, list.id, { plate: 'RCP0005' });
  cache.invalidate();
  await raise(['RCP0005']);
  t.equal(await deliveries(), before, 'nothing queued: the target asks for health events only');
  await deliverBot();
  t.equal(sim.sent.filter((m) => /RCP0005/.test(m.text ?? '')).length, 0, 'and no chat hears it');
});

t.test('a target picked both by its own filter and by the list gets one delivery; a disabled one none', async (t) => {
  const both = await startReceiver();
  t.teardown(() => both.close());
  const { row: alertTarget, secret: bothSecret } = await createTarget(ctx, {
    name: 'Every alert',
    url: both.url,
    events: ['alert'],
    filter: {},
    enabled: true,
  });
  both.secret = bothSecret;
  const { row: off } = await createTarget(ctx, { name: 'Switched off', url: both.url, events: ['health'], filter: {}, enabled: false });
  await setRecipients(ctx, admin, list.id, { chats: [], webhooks: [alertTarget.id, off.id], mqtt: false });
  await addEntry(ctx, admin, list.id, { plate: 'RCP0006' });
  cache.invalidate();
  await raise(['RCP0006']);
  const queued = await db.sql<{ target_id: string }>(
    `SELECT target_id::text AS target_id FROM webhook_deliveries WHERE body LIKE '%RCP0006%' ORDER BY target_id`,
  );
  t.same(
    queued.map((r) => r.target_id),
    [alertTarget.id],
    'one delivery for the target both ways, none for the disabled one',
  );
  while ((await hookWorker.runOnce()) > 0) {
    /* send what waits */
  }
  await both.waitFor(1);
  t.equal(both.received.filter((r) => JSON.stringify(r.body).includes('RCP0006')).length, 1, 'the receiver hears it once');
});
