/**
 * The delivery worker against the Bot API simulator, over a real database and a real hub
 * (detections through the batch upload, alerts by the real alert worker). Both workers run
 * on one movable clock, driven pass by pass, so windows, cooldowns and backoffs are crossed
 * by moving time, not by sleeping.
 */
import t from 'tap';
import { startBotApi } from '../../../../scripts/simulators/telegram-bot-api.ts';
import { createAlertHooks } from '../../alerts/hooks.ts';
import { createAlertWorker } from '../../alerts/worker.ts';
import { claim } from '../../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../../platform/actor.ts';
import { createCollector } from '../../collectors/create-collector.ts';
import { someUser } from '../../alerts/alerts.test-helper.ts';
import { movableClock } from '../../collectors/collectors.test-helper.ts';
import { testDatabase } from '../../db/database.test-helper.ts';
import { jpegLike, sampleDetection, startTestHub, uploadBatch } from '../../ingest/uploads.test-helper.ts';
import { createLog } from '../../platform/log.ts';
import { createWatchlistCache } from '../../watchlists/cache.ts';
import { addEntry } from '../../watchlists/entries.ts';
import { subscribe } from '../../watchlists/subscriptions.ts';
import { createWatchlist } from '../../watchlists/watchlists.ts';
import { botApi } from '../bot-api.ts';
import { claimChat, markSending } from './queue.ts';
import { queueDeliveriesOnRaise } from './enqueue.ts';
import { foldedRepeatsByAlert } from './folded-repeats.ts';
import { createDeliveryWorker } from './worker.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const sim = await startBotApi();
t.teardown(() => sim.close());
const clock = movableClock(new Date());
const log = createLog('silent');
const ctx = { db, clock, log };
const WINDOW = 5000;
const COOLDOWN = 10 * 60_000;
const LOCK = 30_000;
const PUBLIC = 'https://hub.example.test';

const cache = createWatchlistCache(ctx);
const hooks = createAlertHooks();
queueDeliveriesOnRaise(hooks, { cooldownMs: COOLDOWN });
const alertWorker = createAlertWorker(ctx, cache, { hooks });
const worker = createDeliveryWorker(
  { db, clock, log, api: botApi(sim.url, sim.token), image: (sha) => hub.deps.images.get(sha) },
  { windowMs: WINDOW, publicUrl: PUBLIC, lockTimeoutMs: LOCK },
);

// Users: linked and subscribed (1001), muted (1002), in quiet hours (1003), not linked,
// linked but not subscribed (1005), and one who switched telegram off for the list (1006).
const admin = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, admin, { name: 'Stolen vehicles', priority: 'critical' });
const users: Record<string, string> = {};
for (const name of ['linked', 'muted', 'quiet', 'unlinked', 'unsubscribed', 'off']) users[name] = await someUser(hub.deps);
for (const name of ['linked', 'muted', 'quiet', 'unlinked', 'off']) await subscribe(ctx, { userId: users[name] as string, ip: null, userAgent: null }, list.id);
const chats: Record<string, number> = { linked: 1001, muted: 1002, quiet: 1003, unsubscribed: 1005, off: 1006 };
for (const [name, chat] of Object.entries(chats)) await db.sql(`INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, $2)`, [users[name], chat]);
await db.sql(`UPDATE telegram_links SET muted_until = $1 WHERE chat_id = 1002`, [new Date(clock.now().getTime() + 3600_000).toISOString()]);
// Quiet for the two hours around "now", written in another zone than UTC.
const zone = 'Pacific/Auckland';
const local = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' }).format(clock.now());
const [hh, mm] = local.split(':').map(Number) as [number, number];
const at = (h: number): string => `${String((h + 24) % 24).padStart(2, '0')}:${String(mm).padStart(2, '0')}`;
await db.sql(`INSERT INTO notification_preferences (user_id, channel, quiet_hours_start, quiet_hours_end, timezone) VALUES ($1, 'telegram', $2, $3, $4)`, [
  users.quiet,
  at(hh - 1),
  at(hh + 1),
  zone,
]);
await db.sql(`INSERT INTO notification_preferences (user_id, watchlist_id, channel, enabled) VALUES ($1, $2, 'telegram', false)`, [users.off, list.id]);

// A second site, for a watched car seen at one gate and then at another.
const siteB = await claim(
  hub.deps,
  { claim_code: (await createCollector(hub.deps, SYSTEM_ACTOR, { siteName: 'Site B' })).claimCode, hardware_id: 'hw-site-b' },
  '127.0.0.1',
);

let plateNo = 0;
/**
 * Puts `count` plates on a watchlist (`list` unless `listId`), uploads them as one batch of a
 * collector (the test hub's own unless `apiKey`) and runs the alert worker.
 */
async function watched(
  count: number,
  options: { crop?: boolean; plate?: string; apiKey?: string; capturedAt?: Date; listId?: string } = {},
): Promise<string[]> {
  const plates = Array.from({ length: count }, () => options.plate ?? `TG${String(++plateNo).padStart(4, '0')}`);
  for (const plate of new Set(plates)) await addEntry(ctx, admin, options.listId ?? list.id, { plate }).catch(() => undefined);
  cache.invalidate(); // what the NOTIFY of an entry change does in a running hub
  const entries = plates.map((text, i) => ({
    detection: sampleDetection({
      plate: { text, confidence: 0.87 },
      timestamp: new Date((options.capturedAt?.getTime() ?? Date.now() - 60_000) + i).toISOString(),
    }),
    ...(options.crop === false ? {} : { plateCrop: jpegLike(2048 + i) }),
  }));
  await uploadBatch(hub, options.apiKey ?? hub.apiKey, entries);
  while ((await alertWorker.runOnce()) > 0) {
    /* drain */
  }
  return plates;
}
const sentTo = (chat: number) => sim.sent.filter((m) => m.chatId === chat);
async function pass(advanceMs = 0): Promise<void> {
  clock.advance(advanceMs);
  await worker.runOnce();
}
/** The alerts of a plate, oldest first. */
const alertsOf = async (plate: string): Promise<string[]> =>
  (await db.sql<{ id: string }>(`SELECT a.id FROM alerts a JOIN detections d ON d.id = a.detection_id WHERE d.plate_number = $1 ORDER BY a.id`, [plate])).map(
    (r) => String(r.id),
  );
const queue = (status?: string) =>
  db.sql<{ chat_id: string; status: string; last_error: string | null; attempts: number }>(
    `SELECT chat_id, status, last_error, attempts FROM notification_queue ${status ? 'WHERE status = $1' : ''} ORDER BY id`,
    status ? [status] : [],
  );

t.test('one watched plate: one photo for the linked subscriber, nobody else; muted and quiet hours recorded', async (t) => {
  const [plate] = await watched(1);
  await pass();
  t.equal(sim.sent.length, 0, 'held for the aggregation window');
  await pass(WINDOW);
  t.equal(sim.sent.length, 1, 'one message in all');
  const [message] = sentTo(1001);
  t.equal(message?.method, 'sendPhoto');
  t.equal(message?.photoBytes, 2048, 'the plate crop, as a photo');
  t.notMatch(message?.text, /\r/, 'line breaks arrive as written');
  t.match(message?.text, new RegExp(`${plate} on Stolen vehicles \\(critical\\)`));
  t.match(message?.text, new RegExp(`^🚨 UNVERIFIED · ${plate}`), 'a list asks for verification by default: the hit is labelled unverified');
  t.match(message?.text, /Ingest test site · gate-1/);
  t.match(message?.text, /confidence 87%/);
  t.match(message?.text, new RegExp(`^${PUBLIC}/detections/\\d+$`, 'm'), 'a link to the detection');
  const rows = await queue();
  t.same(
    rows.map((r) => [Number(r.chat_id), r.status, r.last_error]).sort(),
    [
      [1001, 'sent', null],
      [1002, 'suppressed', 'muted'],
      [1003, 'suppressed', 'quiet_hours'],
    ].sort(),
  );
  const [link] = await db.sql<{ last_delivery_at: Date | null }>(`SELECT last_delivery_at FROM telegram_links WHERE chat_id = 1001`);
  t.ok(link?.last_delivery_at, 'the link records the delivery');
});

t.test('per-plate cooldown: the same plate again at the same site is folded until the cooldown is over', async (t) => {
  const before = sentTo(1001).length;
  await watched(1, { plate: 'PARK3D' });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 1, 'first pass of the parked car: sent');
  clock.advance(2 * 60_000);
  const second = new Date(Date.now() - 30_000);
  await watched(1, { plate: 'PARK3D', capturedAt: second });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 1, 'second pass at the same gate within 10 minutes: not sent');
  const [last] = (await queue()).filter((r) => Number(r.chat_id) === 1001).slice(-1);
  t.same([last?.status, last?.last_error], ['suppressed', 'cooldown']);
  const [first, repeat] = await alertsOf('PARK3D');
  const folded = await foldedRepeatsByAlert(db, [first as string, repeat as string]);
  t.same(folded.get(first as string), { folded_repeats: 1, last_folded_at: second.toISOString() }, 'the first alert shows 1 folded repeat and when');
  t.notOk(folded.has(repeat as string), 'the repeat itself had nothing folded into it');
  clock.advance(COOLDOWN - 2 * 60_000);
  await watched(1, { plate: 'PARK3D' });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 2, 'after the cooldown: sent again');
});

t.test('a pursuit is never silenced: the same plate at another site two minutes later reaches the chat', async (t) => {
  const before = sentTo(1001).length;
  await watched(1, { plate: 'CHASE1' });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 1, 'seen at the first site: sent');
  t.match(sentTo(1001).at(-1)?.text, /CHASE1 on Stolen vehicles[^]*Ingest test site · gate-1/);
  clock.advance(2 * 60_000);
  await watched(1, { plate: 'CHASE1', apiKey: siteB.api_key });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 2, 'seen at site B inside the cooldown: sent too');
  t.match(sentTo(1001).at(-1)?.text, /CHASE1 on Stolen vehicles[^]*Site B · /);
  const items = (await queue()).filter((r) => Number(r.chat_id) === 1001).slice(-2);
  t.same(
    items.map((i) => i.status),
    ['sent', 'sent'],
  );
  // Back at site B a minute later: folded into the site B message, not the first one.
  clock.advance(60_000);
  await watched(1, { plate: 'CHASE1', apiKey: siteB.api_key });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 2, 'again at site B inside its cooldown: folded');
  const [atA, atB] = await alertsOf('CHASE1');
  const folded = await foldedRepeatsByAlert(db, [atA as string, atB as string]);
  t.notOk(folded.has(atA as string), 'nothing folded into the site A message');
  t.equal(folded.get(atB as string)?.folded_repeats, 1, 'one repeat folded into the site B message');
  // And back at site A: the last message said site B, so this is news.
  clock.advance(60_000);
  await watched(1, { plate: 'CHASE1' });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 3, 'back at the first site: sent');
});

t.test('a more urgent watchlist at the same site inside the cooldown is sent', async (t) => {
  const low = await createWatchlist(ctx, admin, { name: 'Unpaid tolls', priority: 'low' });
  await subscribe(ctx, { userId: users.linked as string, ip: null, userAgent: null }, low.id);
  const before = sentTo(1001).length;
  await watched(1, { plate: 'TOLL9X', listId: low.id });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 1, 'on the low-priority list: sent');
  t.match(sentTo(1001).at(-1)?.text, /TOLL9X on Unpaid tolls \(low\)/);
  clock.advance(60_000);
  await watched(1, { plate: 'TOLL9X' }); // now on the critical list too
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 2, 'a minute later at the same gate, now on a critical list: sent');
  t.match(sentTo(1001).at(-1)?.text, /TOLL9X on Stolen vehicles \(critical\)/);
  clock.advance(60_000);
  await watched(1, { plate: 'TOLL9X' });
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before + 2, 'the same gate and lists again: folded');
});

t.test('muted or unlinked after the alert was queued: nothing is sent, the items say why', async (t) => {
  const before = sentTo(1001).length;
  await watched(1);
  await db.sql(`UPDATE telegram_links SET muted_until = $1 WHERE chat_id = 1001`, [new Date(clock.now().getTime() + 60_000).toISOString()]);
  await pass(WINDOW);
  t.equal(sentTo(1001).length, before, 'muted inside the window: not sent');
  const [item] = (await queue()).filter((r) => Number(r.chat_id) === 1001).slice(-1);
  t.same([item?.status, item?.last_error], ['suppressed', 'muted']);
  await db.sql(`UPDATE telegram_links SET muted_until = NULL WHERE chat_id = 1001`);
});

t.test('20 alerts within 5 s for one chat: one aggregated message', async (t) => {
  const before = sentTo(1001).length;
  const plates: string[] = [];
  for (let i = 0; i < 4; i++) {
    plates.push(...(await watched(5)));
    await pass(1000);
  }
  t.equal(sentTo(1001).length, before, 'nothing while the window is open');
  await pass(WINDOW);
  const got = sentTo(1001).slice(before);
  t.equal(got.length, 1, 'one message');
  t.equal(got[0]?.method, 'sendMessage');
  t.match(got[0]?.text, /^🚨 20 alerts/);
  for (const plate of plates) t.match(got[0]?.text, plate);
});

t.test('more alerts than one message holds: the rest follow in the next, none reduced to a count', async (t) => {
  const before = sentTo(1001).length;
  const plates = await watched(45);
  await pass(WINDOW);
  await pass(0);
  const got = sentTo(1001).slice(before);
  t.ok(got.length >= 2, `${got.length} messages`);
  t.match(got[0]?.text, /\(more follow\)/);
  const all = got.map((m) => m.text).join('\n');
  for (const plate of plates) t.equal(all.split(`${plate} on `).length - 1, 1, `${plate} once`);
});

t.test('a 429 pauses every chat for retry_after; nothing is lost and no attempt is spent', async (t) => {
  await db.sql(`UPDATE telegram_links SET muted_until = NULL WHERE chat_id = 1002`);
  const before = { a: sentTo(1001).length, b: sentTo(1002).length };
  await watched(1);
  sim.rateLimitNext(3, 1);
  await pass(WINDOW);
  t.equal(sentTo(1001).length + sentTo(1002).length, before.a + before.b, 'the first send got 429 and the pass stopped');
  t.equal(worker.stats().rateLimited, 1);
  await pass(2000);
  t.equal(sentTo(1001).length + sentTo(1002).length, before.a + before.b, 'still paused for every chat');
  await pass(1100);
  t.equal(sentTo(1001).length, before.a + 1, 'after retry_after: chat 1001 got it');
  t.equal(sentTo(1002).length, before.b + 1, 'and chat 1002');
  const pending = await db.sql<{ attempts: number }>(`SELECT attempts FROM notification_queue WHERE status = 'sent' ORDER BY sent_at DESC LIMIT 2`);
  t.same(
    pending.map((p) => Number(p.attempts)),
    [1, 1],
    'the 429 cost no attempt',
  );
});

t.test('a blocked bot deactivates the link; nothing more is queued for it', async (t) => {
  sim.block(1002);
  await watched(1);
  await pass(WINDOW);
  const [link] = await db.sql<{ is_active: boolean }>(`SELECT is_active FROM telegram_links WHERE chat_id = 1002`);
  t.equal(link?.is_active, false);
  const [item] = (await queue()).filter((r) => Number(r.chat_id) === 1002).slice(-1);
  t.same([item?.status, item?.last_error], ['failed', 'Bot API 403: Forbidden: bot was blocked by the user']);
  const count = (await queue()).length;
  await watched(1);
  t.same(
    (await queue())
      .slice(count)
      .filter((r) => r.status !== 'suppressed')
      .map((r) => Number(r.chat_id)),
    [1001],
    'the next alert is queued to be sent to 1001 only',
  );
  await pass(WINDOW);
});

t.test('a platform that cannot be reached: retries after 1 s, 5 s, 30 s, then failed', async (t) => {
  const dead = createDeliveryWorker(
    { db, clock, log, api: botApi('http://127.0.0.1:9', sim.token), image: async () => undefined },
    { windowMs: WINDOW, publicUrl: PUBLIC, lockTimeoutMs: LOCK },
  );
  await watched(1, { crop: false });
  clock.advance(WINDOW);
  const last = async () => (await queue()).filter((r) => Number(r.chat_id) === 1001).slice(-1)[0];
  await dead.runOnce();
  t.match(await last(), { status: 'pending', attempts: 1 });
  for (const [wait, attempts] of [
    [1000, 2],
    [5000, 3],
  ] as const) {
    clock.advance(wait - 1);
    await dead.runOnce();
    t.match(await last(), { attempts: attempts - 1 }, `not before ${wait} ms`);
    clock.advance(1);
    await dead.runOnce();
    t.match(await last(), { status: 'pending', attempts });
  }
  clock.advance(30_000);
  await dead.runOnce();
  t.match(await last(), { status: 'failed', attempts: 4, last_error: /ECONNREFUSED|connect/ });
});

t.test('a worker that died mid-send: prepared resends plainly, sending resends as a possible repeat', async (t) => {
  await watched(2, { crop: false });
  clock.advance(WINDOW);
  // Died after claiming (never sent): resent as if nothing happened.
  const prepared = await claimChat(db, '1001', clock.now(), 1);
  t.ok(prepared);
  // Died with the request in flight: the outcome is unknown.
  const sending = await claimChat(db, '1001', clock.now(), 1);
  t.ok(sending);
  await markSending(db, sending?.messageId as string, 'sendMessage', clock.now());
  const before = sentTo(1001).length;
  await pass(LOCK - 1);
  t.equal(sentTo(1001).length, before, 'claims younger than the lock timeout are left alone');
  await pass(10_000); // the reaper looks every 10 s (a third of the lock timeout)
  const got = sentTo(1001).slice(before);
  t.equal(got.length, 1, 'both alerts in one message after the reaper');
  t.match(got[0]?.text, /2 alerts/);
  t.equal((got[0]?.text.match(/possibly a repeat/g) ?? []).length, 1, 'only the one that may have arrived says so');
  const states = await db.sql<{ id: string; state: string }>(`SELECT id, state FROM telegram_messages WHERE id IN ($1::bigint, $2::bigint) ORDER BY id`, [
    prepared?.messageId,
    sending?.messageId,
  ]);
  t.same(
    states.map((s) => s.state),
    ['failed', 'unknown'],
  );
});
