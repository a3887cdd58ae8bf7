/**
 * The bot tells nobody more than the dashboard would (docs/sites.md): an alert on a read at
 * one site is queued for a subscribed, linked user only when their sites hold that read.
 */
import t from 'tap';
import { createAlertHooks } from '../alerts/hooks.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { someUser } from '../alerts/alerts.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { jpegLike, sampleDetection, startTestHub, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { subscribe } from '../watchlists/subscriptions.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { queueDeliveriesOnRaise } from '../messaging/delivery/enqueue.ts';
import { createSite } from './manage.ts';
import { setCollectorSite } from './manage.ts';
import { setUserSites } from './user-sites.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const ctx = { db, clock: movableClock(new Date()), log: createLog('silent') };
const cache = createWatchlistCache(ctx);
const hooks = createAlertHooks();
queueDeliveriesOnRaise(hooks, { cooldownMs: 600_000 });
const alertWorker = createAlertWorker(ctx, cache, { hooks });

const admin = { userId: await someUser(hub.deps), ip: null, userAgent: null };
const list = await createWatchlist(ctx, admin, { name: 'Bot scope', priority: 'critical' });
await addEntry(ctx, admin, list.id, { plate: 'BOT0001' });
cache.invalidate();
// The test hub's collector is at site "Here"; one operator sees all sites, one only "Elsewhere".
const here = await createSite(db, { name: 'Here' });
const elsewhere = await createSite(db, { name: 'Elsewhere' });
await setCollectorSite(db, hub.collectorId, here.id);
const everywhere = await someUser(hub.deps);
const scoped = await someUser(hub.deps);
const local = await someUser(hub.deps);
await setUserSites(db, scoped, { all_sites: false, site_ids: [elsewhere.id], group_ids: [] });
await setUserSites(db, local, { all_sites: false, site_ids: [here.id], group_ids: [] });
let chat = 2000;
for (const userId of [everywhere, scoped, local]) {
  await subscribe(ctx, { userId, ip: null, userAgent: null }, list.id);
  await db.sql(`INSERT INTO telegram_links (user_id, chat_id) VALUES ($1, $2)`, [userId, ++chat]);
}

t.test('an alert at one site is queued only for users whose sites hold it', async (t) => {
  await uploadBatch(hub, hub.apiKey, [
    {
      detection: sampleDetection({ plate: { text: 'BOT0001', confidence: 0.9 }, timestamp: new Date(Date.now() - 60_000).toISOString() }),
      plateCrop: jpegLike(900),
    },
  ]);
  while ((await alertWorker.runOnce()) > 0) {
    /* drain */
  }
  const queued = await db.sql<{ user_id: string }>(`SELECT user_id::text AS user_id FROM notification_queue ORDER BY user_id`);
  t.same(queued.map((r) => r.user_id).sort(), [everywhere, local].sort(), 'the all-sites user and the one whose site it is; not the other site’s');
});
