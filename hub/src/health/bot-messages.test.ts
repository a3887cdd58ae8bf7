/**
 * Health alerts to the admins' bot chats (docs/health.md "Where they show"), against the Bot
 * API simulator on loopback over real PostgreSQL (or PGlite): the evaluator queues in its
 * transaction, the sender sends with the delivery worker's limits and retries. One look is
 * what the schedule does once a minute (schedule.ts): evaluate, then send what is due, on the
 * movable clock, so retries are reached by moving time, not by sleeping.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { HEALTH_HEARERS } from '../hearers.ts';
import { startBotApi } from '../../../scripts/simulators/telegram-bot-api.ts';
import { createUser } from '../auth/registration.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { botApi } from '../messaging/bot-api.ts';
import { createSendLimits } from '../messaging/delivery/send-limits.ts';
import { sendHealthMessages } from '../messaging/health-messages.ts';
import { evaluateHealth, type HealthContext } from './evaluate.ts';
import { alertsOf, newSite, type Site } from './health.test-helper.ts';

// A Wednesday, 10:00 UTC.
const T0 = new Date('2026-01-14T10:00:00.000Z');
const db = await testDatabase(t);
const clock = movableClock(T0);
const hub = await startTestHub({ db, clock });
t.teardown(() => hub.close());
const sim = await startBotApi();
t.teardown(() => sim.close());
const log = createLog('silent');
const ctx: HealthContext = { db, clock, log, config: hub.deps.config, hearers: HEALTH_HEARERS };
const limits = createSendLimits();

// A proxy in front of the simulator that answers the next `failNext` sends with a 500, as the
// platform does when it has a bad moment (the simulator itself has no 500).
let failNext = 0;
let sendCalls = 0;
const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const send = /\/send(Message|Photo)$/.test(req.url ?? '');
    if (send) sendCalls += 1;
    if (send && failNext > 0) {
      failNext -= 1;
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 500, description: 'Internal Server Error' }));
      return;
    }
    void fetch(`${sim.url}${req.url ?? ''}`, {
      method: req.method ?? 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      body: Buffer.concat(chunks),
    }).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
const api = botApi(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, sim.token);

// An admin and an operator, each with a linked chat.
const ADMIN_CHAT = 3001;
const OPERATOR_CHAT = 3002;
for (const [role, chat] of [
  ['admin', ADMIN_CHAT],
  ['operator', OPERATOR_CHAT],
] as const) {
  const user = await createUser(hub.deps, { email: `health-${role}@example.test`, password: 'correct horse battery staple', role });
  if (!user) throw new Error('user exists');
  await db.sql(`INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, $2)`, [user.id, chat]);
}

/** One minute of the schedule: move the clock, beat (unless silent), evaluate, send. */
async function look(sites: readonly Site[] = []): Promise<{ opened: string[]; closed: string[] }> {
  clock.advance(60_000);
  for (const s of sites) await s.beat();
  const changes = await evaluateHealth(ctx);
  await sendHealthMessages({ db, clock, log, api, limits, sleep: async () => undefined });
  return changes;
}
const textsTo = (chat: number, site: string) => sim.sent.filter((m) => m.chatId === chat && m.text.includes(site)).map((m) => m.text);
const rows = () =>
  db.sql<{ event: string; chat_id: string; status: string; attempts: number; last_error: string | null }>(
    `SELECT event, chat_id::text AS chat_id, status, attempts, last_error FROM health_alert_messages ORDER BY id`,
  );

// Each test starts a week after the last and suspends its site when done.
let week = 0;
const start = (): void => clock.set(new Date(T0.getTime() + week++ * 7 * 24 * 3_600_000));
const retire = async (id: string) => {
  await db.sql(`UPDATE collectors SET status = 'disabled', suspended_at = now() WHERE id = $1`, [id]);
  await look();
};

t.test("a collector goes silent and comes back: the admin's chat gets one opened and one closed text, the operator's none", async (t) => {
  start();
  const site = await newSite(hub, clock, 'Bot depot');
  await site.beat();
  const opened: string[] = [];
  for (let m = 1; m <= 10; m++) opened.push(...(await look()).opened);
  t.equal(opened.length, 1, 'one alert over 10 silent minutes');
  const [alert] = await alertsOf(ctx, site.id);
  t.equal(alert?.message, 'Collector Bot depot has sent no heartbeat for 4 minutes.');
  t.same(textsTo(ADMIN_CHAT, 'Bot depot'), ['⚠️ Health: Collector Bot depot has sent no heartbeat for 4 minutes.'], 'opened once, not at every look');

  // Opened at minute 4, back at minute 11: 7 minutes.
  t.same((await look([site])).closed, [alert?.id], 'a heartbeat closes it');
  for (let m = 0; m < 5; m++) await look([site]);
  t.same(textsTo(ADMIN_CHAT, 'Bot depot'), [
    '⚠️ Health: Collector Bot depot has sent no heartbeat for 4 minutes.',
    '✅ Resolved after 7 min (Bot depot): Collector Bot depot has sent no heartbeat for 4 minutes.',
  ]);
  t.same(
    sim.sent.filter((m) => m.chatId === OPERATOR_CHAT),
    [],
    "the operator's chat: nothing",
  );
  t.ok(
    sim.sent.every((m) => m.method === 'sendMessage'),
    'plain text messages',
  );
  t.same(
    (await rows()).map((r) => `${r.event}:${r.chat_id}:${r.status}:${r.attempts}`),
    [`opened:${ADMIN_CHAT}:sent:1`, `closed:${ADMIN_CHAT}:sent:1`],
    'one queued message per event, for the admin only',
  );
  await retire(site.id);
});

for (const fault of ['500', '429'] as const) {
  t.test(`the platform answers ${fault} once: the text is retried and arrives exactly once`, async (t) => {
    start();
    const name = `Fault ${fault} depot`;
    const site = await newSite(hub, clock, name);
    await site.beat();
    const before = sendCalls;
    for (let m = 1; m <= 3; m++) await look();
    if (fault === '500') failNext = 1;
    else sim.rateLimitNext(1, 1);
    t.equal((await look()).opened.length, 1, 'opened at minute 4');
    t.same(textsTo(ADMIN_CHAT, name), [], 'the first try failed');
    const [failed] = (await rows()).filter((r) => r.event === 'opened' && r.status === 'pending' && r.last_error !== null);
    t.match(failed?.last_error, fault === '500' ? /500/ : /429/, 'the failure is kept');

    for (let m = 0; m < 5; m++) await look();
    t.same(textsTo(ADMIN_CHAT, name), [`⚠️ Health: Collector ${name} has sent no heartbeat for 4 minutes.`], 'sent at the retry, once');
    t.equal(sendCalls - before, 2, 'two calls in all: the failed one and the retry');
    t.same(textsTo(OPERATOR_CHAT, name), []);
    await retire(site.id);
    t.equal(textsTo(ADMIN_CHAT, name).length, 2, 'and one closed text when suspended');
  });
}

t.test('four 429s in a row cost no attempt: the text still arrives once, after the platform lets it', async (t) => {
  start();
  const name = 'Busy depot';
  const site = await newSite(hub, clock, name);
  await site.beat();
  for (let m = 1; m <= 3; m++) await look();
  // Four 429s would use up the four tries of a failing message (1 s, 5 s, 30 s, then failed).
  sim.rateLimitNext(1, 4);
  const before = sendCalls;
  for (let m = 0; m < 4; m++) await look();
  t.same(textsTo(ADMIN_CHAT, name), [], 'held while the platform says wait');
  t.equal(sendCalls - before, 4, 'one try a look');
  await look();
  t.same(textsTo(ADMIN_CHAT, name), [`⚠️ Health: Collector ${name} has sent no heartbeat for 4 minutes.`], 'sent once the platform lets it');
  const opened = (await rows()).filter((r) => r.event === 'opened' && r.last_error?.includes('429'));
  t.match(opened, [{ status: 'sent', attempts: 1 }], 'the 429s cost no attempt');
  await retire(site.id);
});
