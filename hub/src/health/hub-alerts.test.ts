/**
 * The hub's own health alert, `search_keys_behind` (docs/health.md "Search keys"), on real
 * PostgreSQL (or PGlite): reads stored over real HTTP with no key builder running, the
 * evaluator run on the movable clock, the admins' bot chat on the Bot API simulator. It opens
 * once past the minute, with no collector; it closes once a builder has keyed every read.
 */
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
import { createKeyBuilder } from '../search/key-builder-worker.ts';
import { healthBody } from '../webhooks/payload.ts';
import { evaluateHealth, type HealthContext } from './evaluate.ts';
import { newSite } from './health.test-helper.ts';
import { hubFindings } from './hub-rules.ts';
import { SEARCH_KEYS } from './kinds.ts';
import { HUB_NAME, listHealthAlerts } from './present.ts';

t.test('the rule: open past the threshold, close at 10 s or less, no opinion between or when unread', async (t) => {
  const on = hubFindings({ searchKeysLag: { reads: 12_345, seconds: 185 } });
  t.match(on, [{ kind: 'search_keys_behind', on: true, cameraId: null, detail: { lag_reads: 12_345, lag_seconds: 185 } }]);
  t.match(on[0]?.message, /^Search keys are 3 minutes behind \(12,345 reads not keyed yet\)/);
  t.same(hubFindings({ searchKeysLag: { reads: 5, seconds: SEARCH_KEYS.lagAlertSeconds } }), [], 'exactly at the threshold: no opinion');
  t.same(hubFindings({ searchKeysLag: { reads: 5, seconds: 30 } }), [], 'between the two: the state stays');
  t.match(hubFindings({ searchKeysLag: { reads: 0, seconds: 0 } }), [{ kind: 'search_keys_behind', on: false }], 'caught up: off');
  t.same(hubFindings({ searchKeysLag: undefined }), [], 'a lag that could not be read changes nothing');
});

t.test('end to end: opened once with no collector, sent to the admin, closed when the builder catches up', async (t) => {
  const db = await testDatabase(t);
  // The reads' received_at is the database's own now(): the clock starts there.
  const clock = movableClock(new Date());
  const hub = await startTestHub({ db, clock });
  t.teardown(() => hub.close());
  const sim = await startBotApi();
  t.teardown(() => sim.close());
  const log = createLog('silent');
  const ctx: HealthContext = { db, clock, log, config: hub.deps.config, hearers: HEALTH_HEARERS };
  const api = botApi(sim.url, sim.token);
  const limits = createSendLimits();
  const admin = await createUser(hub.deps, { email: 'keys-admin@example.test', password: 'correct horse battery staple', role: 'admin' });
  if (!admin) throw new Error('user exists');
  await db.sql(`INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, $2)`, [admin.id, 4001]);
  const send = () => sendHealthMessages({ db, clock, log, api, limits, sleep: async () => undefined });
  const hubAlerts = async () => (await listHealthAlerts(db, { state: 'all', limit: 50 })).items.filter((a) => a.kind === 'search_keys_behind');

  const site = await newSite(hub, clock, 'Keys depot');
  await site.beat();
  t.ok([201, 202].includes(await site.upload(20, 'gate-1')), 'stored (202: under backpressure, still stored)');
  t.same((await evaluateHealth(ctx)).opened, [], 'just stored: not behind');

  clock.advance(3 * 60_000);
  await site.beat();
  const first = await evaluateHealth(ctx);
  t.equal(first.opened.length, 1, 'three minutes unkeyed: one alert');
  await site.beat();
  t.same((await evaluateHealth(ctx)).opened, [], 'a second look opens no second one');
  const [open] = await hubAlerts();
  t.match(open, { id: first.opened[0], collector_id: null, collector_name: HUB_NAME, camera_id: null, closed_at: null });
  t.match(open?.detail, { lag_reads: 20, threshold_seconds: SEARCH_KEYS.lagAlertSeconds });
  t.same(
    (await listHealthAlerts(db, { state: 'open', collectorId: site.id, limit: 50 })).items.filter((a) => a.kind === 'search_keys_behind'),
    [],
    "a collector's own list leaves the hub's alert out",
  );
  if (!open) return;
  t.same(JSON.parse(healthBody(open, 'opened', clock.now())).data.collector, null, 'the webhook body names no collector');

  await send();
  t.same(
    sim.sent.filter((m) => m.chatId === 4001).map((m) => m.text),
    [`⚠️ Health: ${open.message}`],
    "the admin's chat is told",
  );

  const builder = createKeyBuilder({ db, clock, log });
  t.equal(await builder.drain(), 20, 'a builder keys the 20 reads');
  clock.advance(2 * 60_000);
  await site.beat();
  t.same((await evaluateHealth(ctx)).closed, [open.id], 'caught up: closed');
  await send();
  t.same(
    sim.sent.filter((m) => m.chatId === 4001).map((m) => m.text),
    [`⚠️ Health: ${open.message}`, `✅ Resolved after 2 min (${HUB_NAME}): ${open.message}`],
    'and told it closed',
  );
  t.equal((await hubAlerts()).length, 1, 'one alert in the history');
});
