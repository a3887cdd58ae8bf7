/**
 * A target kept to some sites (filter `site_ids`, docs/webhooks.md "Filters"), end to end on
 * either database: two collectors at two sites upload the same listed plates; alerts and
 * stored reads are queued by the real alert worker and detection events worker and POSTed to
 * receivers on loopback. The site-kept target hears its site's only; moving a collector to its
 * site brings that collector's next events; a filter naming an unknown site is refused.
 */
import t from 'tap';
import { HubError } from '../platform/errors.ts';
import { DEFAULT_SITE_ID } from '../db/schema/sites.ts';
import { newSite } from '../health/health.test-helper.ts';
import { uploadPlates } from '../alerts/alerts.test-helper.ts';
import { createAlertHooks } from '../alerts/hooks.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { createSite, setCollectorSite } from '../sites/manage.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { createDetectionEventWorker } from './detection-worker.ts';
import { queueWebhooksOnRaise } from './enqueue.ts';
import { createTarget, editTarget } from './targets.ts';
import { createWebhookWorker } from './worker.ts';
import { hubWithWatchlist, startReceiver, type Receiver } from './webhooks.test-helper.ts';

const { db, hub, clock, ctx, list } = await hubWithWatchlist(t, { name: 'Stolen', priority: 'high', plates: ['SITE01', 'SITE02', 'SITE03'] });
const hooks = createAlertHooks();
queueWebhooksOnRaise(hooks);
const alertWorker = createAlertWorker(ctx, createWatchlistCache(ctx), { hooks });
const detectionWorker = createDetectionEventWorker(ctx);
const delivery = createWebhookWorker(ctx);

// The hub's own collector stays at the default site; a second one is at the estate.
const estate = await createSite(db, { name: 'Estate' });
const other = await newSite(hub, clock, 'Estate gate');
await setCollectorSite(db, other.id, estate.id);
const estateGate = { ...hub, collectorId: other.id, apiKey: other.apiKey };

async function receiverFor(name: string, filter: Record<string, unknown>): Promise<{ receiver: Receiver; id: string }> {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { row, secret } = await createTarget(ctx, { name, url: receiver.url, events: ['alert', 'detection'], filter, enabled: true });
  receiver.secret = secret;
  return { receiver, id: row.id };
}
const everyone = await receiverFor('Control room', {});
const estateOnly = await receiverFor('Estate manager', { site_ids: [estate.id] });

async function flow(): Promise<void> {
  while ((await alertWorker.runOnce()) > 0) {
    /* until the alert queue is empty */
  }
  for (;;) {
    const pass = await detectionWorker.runOnce();
    if (pass.caughtUp) break;
  }
  while ((await delivery.runOnce()) > 0) {
    /* until nothing is due */
  }
}
async function upload(site: typeof hub, plates: string[]): Promise<void> {
  // A 202 (stored, with backpressure advice) is success: uploadPlates takes it as a collector does.
  await uploadPlates(site, plates);
}
const heard = (r: Receiver) =>
  r.received
    .map((m) => {
      const data = m.body.data as { plate: { text: string }; detection: { collector_id: string } };
      return `${m.body.type} ${data.plate.text} ${data.detection.collector_id === other.id ? 'estate' : 'default'}`;
    })
    .sort();

t.test("a site-kept target hears that site's alerts and reads, and nothing of the other's", async (t) => {
  await upload(hub, ['SITE01']);
  await upload(estateGate, ['SITE02']);
  await flow();
  t.same(heard(everyone.receiver), [
    'alert.raised SITE01 default',
    'alert.raised SITE02 estate',
    'detection.stored SITE01 default',
    'detection.stored SITE02 estate',
  ]);
  t.same(heard(estateOnly.receiver), ['alert.raised SITE02 estate', 'detection.stored SITE02 estate'], 'the estate only');
  t.ok(
    estateOnly.receiver.received.every((m) => m.verified),
    'signed',
  );
});

t.test('a collector moved to the site is heard under it from its next event on', async (t) => {
  await setCollectorSite(db, hub.collectorId, estate.id);
  await upload(hub, ['SITE03']);
  await flow();
  t.same(
    heard(estateOnly.receiver).filter((h) => h.includes('SITE03')),
    ['alert.raised SITE03 default', 'detection.stored SITE03 default'],
  );
});

t.test('a filter naming a site that does not exist is refused, on create and on edit', async (t) => {
  const nowhere = '00000000-0000-4000-8000-000000000000';
  await t.rejects(
    createTarget(ctx, { name: 'Nowhere', url: everyone.receiver.url, events: ['alert'], filter: { site_ids: [nowhere] }, enabled: true }),
    new HubError('bad_request', 'filter.site_ids: names a site that does not exist'),
  );
  await t.rejects(editTarget(ctx, everyone.id, { filter: { site_ids: [estate.id, nowhere] } }), { code: 'bad_request' });
  const [row] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_targets WHERE name = 'Nowhere' OR filter ? 'site_ids' AND id = $1::uuid`, [
    everyone.id,
  ]);
  t.equal(row?.n, 0, 'nothing stored, nothing changed');
  // The default site's fixed id is a uuid of version 0: a filter may name it all the same.
  const { row: kept } = await createTarget(ctx, {
    name: 'Home',
    url: everyone.receiver.url,
    events: ['alert'],
    filter: { site_ids: [DEFAULT_SITE_ID] },
    enabled: true,
  });
  t.same(kept.filter, { site_ids: [DEFAULT_SITE_ID] }, 'the default site');
});
