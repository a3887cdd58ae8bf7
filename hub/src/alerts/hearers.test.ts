/**
 * One way to raise an alert, heard once (docs/alerts.md "Who hears an alert"): an alert from
 * each source (live match, a feed's retro-hunt, a plate added by hand, a requeued check) goes
 * through `insertAlerts` with the hearers the hub wires (hearers.ts), and each hearer gets it
 * exactly once: the bot's notification queue and the webhooks' delivery queue in the raising
 * transaction, and the `alerts` notification that the live broker and MQTT out LISTEN for.
 */
import t, { type Test } from 'tap';
import { alertHearers, heardRetroHunt } from '../hearers.ts';
import { ALERT_CHANNEL } from '../db/channels.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { subscribe } from '../watchlists/subscriptions.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { createTarget } from '../webhooks/targets.ts';
import { someUser, uploadPlates } from './alerts.test-helper.ts';
import { listFailedAlertChecks, requeueFailedAlertChecks } from './failed-checks.ts';
import { createAlertWorker } from './worker.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const clock = movableClock(new Date());
const ctx = { db, clock, log: createLog('silent') };
// A bot is configured (its queueing registers only then); nothing is sent here, only queued.
const config = {
  ...hub.deps.config,
  telegram: { token: 'test', apiUrl: 'http://127.0.0.1:9', mode: 'polling' as const, aggregateMs: 5000, cooldownMs: 0 },
};

const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, actor, { name: 'Heard once', priority: 'high' });
await subscribe(ctx, actor, list.id);
await db.sql(`INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, 4242)`, [actor.userId]);
await createTarget({ ...ctx, config }, { name: 'Every alert', url: 'http://127.0.0.1:9/hook', events: ['alert'], filter: {}, enabled: true });

// After commit: every alert id the `alerts` channel carried, as the live broker and MQTT hear it.
const notified: string[] = [];
const unlisten = await db.listen(ALERT_CHANNEL, (payload) => notified.push(...((JSON.parse(payload) as { ids: string[] }).ids ?? []).map(String)));
t.teardown(() => unlisten());

const hooks = alertHearers(config);
let broken = false;
const real = createWatchlistCache(ctx);
const cache = { ...real, index: async () => (broken ? Promise.reject(new Error('watchlist store unreachable')) : real.index()) };
const worker = createAlertWorker(ctx, cache, { hooks });
async function drain(): Promise<void> {
  while ((await worker.runOnce()) > 0) {
    /* until the queue is empty */
  }
}

async function alertOf(plate: string): Promise<{ id: string; historical: boolean }> {
  const rows = await db.sql<{ id: string; historical: boolean }>(
    `SELECT a.id::text AS id, a.historical FROM alerts a JOIN detections d ON d.id = a.detection_id WHERE a.watchlist_id = $1 AND d.plate_number = $2`,
    [list.id, plate],
  );
  t.equal(rows.length, 1, `${plate}: one alert`);
  return rows[0] as { id: string; historical: boolean };
}

/** Each hearer has the alert exactly once (the notification may trail the commit a moment). */
async function heardOnce(t: Test, alertId: string): Promise<void> {
  const [bot] = await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM notification_queue WHERE alert_id = $1`, [alertId]);
  t.equal(Number(bot?.n), 1, 'the bot queued one delivery');
  const [hook] = await db.sql<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE event_key = $1`, [`alert:${alertId}`]);
  t.equal(Number(hook?.n), 1, 'the webhooks queued one delivery');
  for (let i = 0; i < 100 && !notified.includes(alertId); i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(notified.filter((id) => id === alertId).length, 1, 'the live channel was told once');
}

t.test('a live match', async (t) => {
  await addEntry(ctx, actor, list.id, { plate: 'HEAR01' });
  await uploadPlates(hub, ['HEAR01']);
  await drain();
  const alert = await alertOf('HEAR01');
  t.equal(alert.historical, false);
  await heardOnce(t, alert.id);
});

t.test("a feed's retro-hunt (the watchlists' RetroHunt port, as feeds/sync.ts calls it)", async (t) => {
  await uploadPlates(hub, ['HEAR02']);
  await drain(); // not listed yet: no alert
  const entry = await addEntry(ctx, actor, list.id, { plate: 'HEAR02' }); // no hunt asked here
  const hunt = heardRetroHunt(config);
  // The list and its new entry as the feed's sync hands them to the port.
  const huntEntry = () =>
    db.transaction((tx) =>
      hunt(
        tx,
        { id: list.id, name: list.name, priority: list.priority, ocrTolerant: false, forgiveOneMisread: false },
        [
          {
            id: entry.id,
            plate: 'HEAR02',
            key: entry.plateNormalized,
            notes: null,
            addedBy: actor.userId,
            addedAt: clock.now(),
            expiresAt: null,
            priority: null,
          },
        ],
        { days: 7, now: clock.now() },
      ),
    );
  const raised = await huntEntry();
  t.equal(raised.length, 1);
  const alert = await alertOf('HEAR02');
  t.equal(alert.historical, true);
  await heardOnce(t, alert.id);
  const again = await huntEntry();
  t.equal(again.length, 0, 'a second hunt raises nothing');
  await heardOnce(t, alert.id);
});

t.test('a plate added by hand (the route wires the same retro-hunt)', async (t) => {
  await uploadPlates(hub, ['HEAR03']);
  await drain();
  const added = await addEntry(ctx, actor, list.id, { plate: 'HEAR03' }, { hunt: heardRetroHunt(config) });
  t.match(added.retroHunt, { hits: 1 });
  const alert = await alertOf('HEAR03');
  t.equal(alert.historical, true);
  await heardOnce(t, alert.id);
});

t.test('a requeued check', async (t) => {
  await addEntry(ctx, actor, list.id, { plate: 'HEAR04' });
  await uploadPlates(hub, ['HEAR04']);
  broken = true;
  for (let i = 0; i < 5; i++) {
    await drain();
    clock.advance(61_000);
  }
  const failed = await listFailedAlertChecks(db);
  t.equal(failed.total, 1, 'the check failed for good');
  broken = false;
  await requeueFailedAlertChecks(ctx, actor, { id: failed.items[0]?.id ?? '' });
  await drain();
  const alert = await alertOf('HEAR04');
  t.equal(alert.historical, false);
  await heardOnce(t, alert.id);
});
