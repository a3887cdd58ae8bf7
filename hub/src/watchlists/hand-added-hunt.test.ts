/**
 * The retro-hunt for plates added by hand (docs/watchlists.md "Retro-hunt"): one entry through
 * the API and a CSV import search the list's last `retro_hunt_days` of reads, raise each match
 * once as a historical hit, and say how many in the answer. Reads come in through the real
 * batch upload; the injected clock places them. PostgreSQL or PGlite, as DATABASE_URL says.
 */
import t from 'tap';
import { ADMIN_IP, adminTestContext, auditRows, send } from '../admin/admin.test-helper.ts';
import type { AlertRecord } from '../alerts/payload.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from './cache.ts';
import { ALERTS_PATH, WATCHLISTS_PATH } from '../platform/http/paths.ts';

const DAY = 86_400_000;
const B = WATCHLISTS_PATH;
const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const collector = await claimedCollector(ctx.deps);
const cache = createWatchlistCache(ctx.deps);
const worker = createAlertWorker(ctx.deps, cache);

/** One read of `plate` at `at`, through the real batch upload; the live matcher runs after. */
async function upload(plate: string, at: Date): Promise<void> {
  await uploadBatch(ctx.app, collector.apiKey, [
    { detection: sampleDetection({ plate: { text: plate, confidence: 0.9 }, timestamp: at.toISOString() }), plateCrop: jpegLike(300) },
  ]);
  cache.invalidate();
  while ((await worker.runOnce()) > 0) {
    /* drain */
  }
}

async function newList(body: Record<string, unknown>): Promise<{ id: string; retro_hunt_days: number }> {
  const res = await send(ctx, operator, 'POST', B, body);
  if (res.status !== 201) throw new Error(`create ${res.status}: ${await res.text()}`);
  const list = (await res.json()) as { id: string; retro_hunt_days: number };
  // The alert list shows the lists one is subscribed to.
  await send(ctx, operator, 'POST', `${B}/${list.id}/subscription`);
  return list;
}

const since = new Date(ctx.clock.now().getTime() - 30 * DAY).toISOString();
const alertsOf = async (listId: string) =>
  ((await (await send(ctx, operator, 'GET', `${ALERTS_PATH}?since=${since}&limit=100&watchlist_id=${listId}`)).json()) as { data: AlertRecord[] }).data;

/** A CSV upload as the dashboard sends it: text/csv with the double-submit CSRF token. */
function importCsv(listId: string, csv: string) {
  const token = 'csv-csrf-token-0123456789abcdefghijklmnopqrst';
  return ctx.app.request(
    `${B}/${listId}/import`,
    {
      method: 'POST',
      headers: { cookie: `${operator.client.jar.header()}; csrf_token=${token}`, 'x-csrf-token': token, 'content-type': 'text/csv' },
      body: csv,
    },
    { incoming: { socket: { remoteAddress: ADMIN_IP } } },
  );
}

// Reads stored before any list holds them: yesterday (inside the 7-day default) and 10 days ago (outside).
const now0 = ctx.clock.now();
await upload('HND4321', new Date(now0.getTime() - DAY));
await upload('OLD4321', new Date(now0.getTime() - 10 * DAY));

t.test('retro_hunt_days: 7 by default, 0 to 30, operators set it', async (t) => {
  const list = await newList({ name: 'Defaults' });
  t.equal(list.retro_hunt_days, 7);
  for (const [why, value] of [
    ['over 30', 31],
    ['negative', -1],
    ['a fraction', 1.5],
    ['a string', '7'],
  ] as const) {
    t.equal((await send(ctx, operator, 'PATCH', `${B}/${list.id}`, { retro_hunt_days: value })).status, 400, why);
  }
  t.equal((await send(ctx, viewer, 'PATCH', `${B}/${list.id}`, { retro_hunt_days: 3 })).status, 403, 'a viewer cannot');
  const res = await send(ctx, operator, 'PATCH', `${B}/${list.id}`, { retro_hunt_days: 30 });
  t.equal(res.status, 200);
  t.match(await res.json(), { retro_hunt_days: 30 });
  t.match(await (await send(ctx, viewer, 'GET', `${B}/${list.id}`)).json(), { retro_hunt_days: 30 }, 'any user reads it');
});

t.test('a plate added by hand raises one historical hit for yesterday’s read, and only once', async (t) => {
  const list = await newList({ name: 'Hand added', priority: 'high' });
  const res = await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'HND4321', notes: 'grey estate' });
  t.equal(res.status, 201);
  const entry = (await res.json()) as { id: string; retro_hunt: unknown };
  t.same(entry.retro_hunt, { days: 7, hits: 1 }, 'the answer says how many historical hits were raised');
  const alerts = await alertsOf(list.id);
  t.equal(alerts.length, 1, 'one alert');
  t.match(alerts[0], { plate_number: 'HND4321', historical: true, match_kind: 'exact', entry: { notes: 'grey estate' } });
  t.match(await auditRows(ctx, 'watchlist.entry_add', list.id), [{ detail: { plate: 'HND4321', historical_hits: 1 } }]);

  t.equal((await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'HND4321' })).status, 409, 'the same plate twice is refused');
  t.equal((await send(ctx, operator, 'DELETE', `${B}/${list.id}/entries/${entry.id}`)).status, 204);
  const again = await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'HND4321' });
  t.equal(again.status, 201);
  t.same(((await again.json()) as { retro_hunt: unknown }).retro_hunt, { days: 7, hits: 0 }, 'added again: the read already raised its alert on this list');
  t.equal((await alertsOf(list.id)).length, 1, 'still one alert');
});

t.test('retro_hunt_days 0 searches nothing', async (t) => {
  const list = await newList({ name: 'No hunt', retro_hunt_days: 0 });
  const res = await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'HND4321' });
  t.equal(res.status, 201);
  t.same(((await res.json()) as { retro_hunt: unknown }).retro_hunt, { days: 0, hits: 0 });
  t.same(await alertsOf(list.id), []);
});

t.test('a CSV import hunts as far back as the list says, once per read', async (t) => {
  const list = await newList({ name: 'Imported', retro_hunt_days: 30 });
  const res = await importCsv(list.id, 'plate,notes\nHND4321,\nOLD4321,ten days ago\nNOTSEEN1,\n');
  t.equal(res.status, 200);
  t.match(await res.json(), { added: 3, retro_hunt: { days: 30, hits: 2 } });
  const alerts = await alertsOf(list.id);
  t.same(alerts.map((a) => [a.plate_number, a.historical]).sort(), [
    ['HND4321', true],
    ['OLD4321', true],
  ]);
  t.match(await auditRows(ctx, 'watchlist.import', list.id), [{ detail: { added: 3, historical_hits: 2 } }]);
  const again = await importCsv(list.id, 'plate\nHND4321\nOLD4321\n');
  t.match(await again.json(), { added: 0, already_listed: [2, 3], retro_hunt: { days: 30, hits: 0 } }, 'already listed: nothing searched, nothing raised');
  t.equal((await alertsOf(list.id)).length, 2);
});

t.test('a live alert already raised for the read is not raised again as historical', async (t) => {
  const list = await newList({ name: 'Live first' });
  const first = (await (await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'LIV4321' })).json()) as { id: string };
  await upload('LIV4321', ctx.clock.now());
  t.match(await alertsOf(list.id), [{ plate_number: 'LIV4321' }], 'the live alert');
  t.notOk((await alertsOf(list.id))[0]?.historical, 'a live alert carries no historical mark');
  await send(ctx, operator, 'DELETE', `${B}/${list.id}/entries/${first.id}`);
  const res = await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'LIV4321' });
  t.same(((await res.json()) as { retro_hunt: unknown }).retro_hunt, { days: 7, hits: 0 });
  t.equal((await alertsOf(list.id)).length, 1);
});

t.test('the list of lists counts each list’s entries and says whether it follows a feed', async (t) => {
  const list = await newList({ name: 'Counted' });
  for (const plate of ['CNT0001', 'CNT0002']) await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate });
  const find = async () =>
    ((await (await send(ctx, viewer, 'GET', B)).json()) as { data: { id: string; entry_count: number; follows_feed: boolean }[] }).data.find(
      (w) => w.id === list.id,
    );
  t.match(await find(), { entry_count: 2, follows_feed: false });
  await send(ctx, operator, 'PUT', `${B}/${list.id}/feed`, { url: 'https://feeds.example.test/stolen.csv', format: 'csv' });
  t.match(await find(), { entry_count: 2, follows_feed: true });
  t.match(await (await send(ctx, viewer, 'GET', `${B}/${list.id}`)).json(), { entry_count: 2, follows_feed: true }, 'one list reads the same');
});
