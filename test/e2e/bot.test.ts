/**
 * Issue 15 end to end with real processes: cameras push watched plates (with their crops) to
 * a real appliance, which uploads them to a real hub whose bot long-polls and sends through
 * the Bot API simulator. Chats are linked the way users do it (a code from the web, `/link`
 * in the chat). A linked subscriber gets one photo per alert; a muted user, one in quiet
 * hours and one never linked get nothing; a burst of 20 is one message; a 429 delays every
 * chat and loses nothing; blocking the bot deactivates the link.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBotApi, type SentMessage } from '../../scripts/simulators/telegram-bot-api.ts';
import { jpegBytes } from '../../scripts/simulators/plates.ts';
import { applianceUnderTest, hubLinkedToml } from './appliance-under-test.ts';
import { pushPlate, pushPlateWithImages } from './camera-push.ts';
import { hubUnderTest, traced } from './hub-under-test.ts';
import { createUserWithCli, signInOverHttp, type HttpUser } from './users-over-http.ts';
import {
  NOTIFICATION_PREFERENCES_PATH,
  TELEGRAM_LINK_CODE_PATH,
  TELEGRAM_LINK_PATH,
  watchlistPartPath,
  WATCHLISTS_PATH,
} from '../../hub/src/platform/http/paths.ts';

const PASSWORD = 'e2e bot correct horse battery';

async function until<T>(what: string, fn: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

t.test('alerts on the phone: linked, muted, quiet hours, unlinked, burst, 429, blocked', { timeout: 300_000 }, async (t) => {
  const sim = await startBotApi();
  t.teardown(() => sim.close());
  const people = ['linked', 'muted', 'quiet', 'unlinked', 'blocker'] as const;
  const hub = await hubUnderTest(t, {
    env: { HUB_TELEGRAM_BOT_TOKEN: sim.token, HUB_TELEGRAM_API_URL: sim.url },
    beforeStart: async (env) => {
      for (const name of people) await createUserWithCli(env, `${name}@bot.e2e.test`, 'operator', PASSWORD);
    },
  });
  const users = {} as Record<(typeof people)[number], HttpUser>;
  for (const name of people) users[name] = await signInOverHttp(hub.url, `${name}@bot.e2e.test`, PASSWORD);
  const chats = { linked: 7001, muted: 7002, quiet: 7003, blocker: 7005 } as const;

  const list = (await (await users.linked.post(WATCHLISTS_PATH, { name: 'Phone wanted', priority: 'high' })).json()) as { id: string };
  const plates = ['PH0NE1', 'PH0NE2', 'PH0NE3', 'PH0NE4', ...Array.from({ length: 20 }, (_, i) => `BRST${String(i).padStart(2, '0')}`)];
  for (const plate of plates) if ((await users.linked.post(watchlistPartPath(list.id, 'entries'), { plate })).status !== 201) t.fail(`entry ${plate}`);
  for (const name of people) t.equal((await users[name].post(watchlistPartPath(list.id, 'subscription'))).status, 201);

  // Linking as a user does it: a code on the web, /link in the chat, the bot answers.
  for (const [name, chat] of Object.entries(chats) as Array<[keyof typeof chats, number]>) {
    const { code } = (await (await users[name].post(TELEGRAM_LINK_CODE_PATH)).json()) as { code: string };
    const before = sim.sent.length;
    await sim.userSays(chat, `/link ${code}`);
    const reply = await until('the link reply', () => sim.sent.slice(before).find((m) => m.chatId === chat));
    t.match(reply.text, /^Linked to /, `${name} linked`);
  }
  await sim.userSays(chats.muted, '/mute 2h');
  await until('the mute reply', () => sim.sent.find((m) => m.chatId === chats.muted && /^Muted until/.test(m.text)));
  const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hourCycle: 'h23', hour: '2-digit' }).format(new Date());
  const hour = Number(local);
  const hh = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
  t.equal(
    (
      await users.quiet.put(NOTIFICATION_PREFERENCES_PATH, {
        watchlist_id: null,
        channel: 'telegram',
        enabled: true,
        quiet_hours_start: hh(hour - 1),
        quiet_hours_end: hh(hour + 2),
        timezone: 'America/New_York',
      })
    ).status,
    200,
  );

  const appliance = await applianceUnderTest(t, hub.enrollment.api_key, hubLinkedToml(hub.url));
  await appliance.start();
  t.teardown(traced('stop appliance', () => appliance.stop()));
  const alertsTo = (chat: number, from: number): SentMessage[] => sim.sent.slice(from).filter((m) => m.chatId === chat && /🚨/.test(m.text));

  await t.test('one watched plate: one photo with the crop for the linked subscriber only', async (t) => {
    const from = sim.sent.length;
    const crop = jpegBytes(Math.random, 8000);
    const pushed = Date.now();
    t.equal(await pushPlateWithImages(appliance.url, 'PH0NE1', crop, jpegBytes(Math.random, 20_000)), 200);
    const photo = await until('the photo', () => alertsTo(chats.linked, from)[0]);
    t.comment(`camera push to the phone: ${Date.now() - pushed} ms (appliance batch window 5 s, aggregation window 5 s)`);
    t.equal(photo.method, 'sendPhoto');
    t.equal(photo.photoBytes, crop.length, 'the plate crop as the photo');
    t.match(photo.text, /PH0NE1 on Phone wanted \(high\)\n.+\nE2E site · .+\nconfidence 93%\nhttp:\/\/127\.0\.0\.1:\d+\/detections\/\d+/);
    await sleep(1500);
    t.equal(alertsTo(chats.linked, from).length, 1, 'exactly one message');
    for (const name of ['muted', 'quiet', 'blocker'] as const) {
      if (name !== 'blocker') t.same(alertsTo(chats[name], from), [], `${name}: nothing`);
    }
    t.equal(alertsTo(chats.blocker, from).length, 1, 'the other linked subscriber got it too');
    t.equal(sim.sent.slice(from).filter((m) => /🚨/.test(m.text)).length, 2, 'two messages in all: the unlinked user has no chat to get one');
  });

  await t.test('a burst of 20 watched plates within 5 s: one aggregated message per chat', async (t) => {
    const from = sim.sent.length;
    for (const plate of plates.slice(4)) t.equal(await pushPlate(appliance.url, plate), 200);
    const message = await until('the aggregate', () => alertsTo(chats.linked, from)[0]);
    await sleep(7000);
    const got = alertsTo(chats.linked, from);
    t.equal(got.length, 1, 'one message');
    t.match(message.text, /^🚨 20 alerts/);
    for (const plate of plates.slice(4)) t.match(message.text, plate);
  });

  await t.test('a 429 pauses every chat for retry_after, then both get the alert', async (t) => {
    const from = sim.sent.length;
    sim.rateLimitNext(3, 1);
    const pushed = Date.now();
    t.equal(await pushPlate(appliance.url, 'PH0NE2'), 200);
    const a = await until('chat 1', () => alertsTo(chats.linked, from)[0]);
    const b = await until('chat 2', () => alertsTo(chats.blocker, from)[0]);
    const limited = sim.calls.lastIndexOf('sendMessage');
    t.ok(limited >= 0);
    t.ok(Math.min(a.at, b.at) - pushed >= 3000 + 1000, `both waited out the pause (${Math.min(a.at, b.at) - pushed} ms after the push)`);
    t.match(a.text, /PH0NE2/);
    t.match(b.text, /PH0NE2/);
  });

  await t.test('blocking the bot deactivates the link, shown on the web', async (t) => {
    sim.block(chats.blocker);
    t.equal(await pushPlate(appliance.url, 'PH0NE3'), 200);
    const from = sim.sent.length;
    await until('the linked chat', () => alertsTo(chats.linked, from)[0]);
    let links: Array<{ chat_id: string; is_active: boolean }> = [];
    for (let i = 0; i < 100; i++) {
      links = ((await (await users.blocker.get(TELEGRAM_LINK_PATH)).json()) as { links: typeof links }).links;
      if (links[0]?.is_active === false) break;
      await sleep(100);
    }
    t.match(links, [{ chat_id: String(chats.blocker), is_active: false }]);
  });
});
