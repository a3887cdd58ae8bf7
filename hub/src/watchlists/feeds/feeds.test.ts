/**
 * Watchlist feeds end to end (docs/watchlists.md "Feeds", "Retro-hunt"): a real feed server on
 * loopback that changes, answers 304 to its own ETag, fails (500, a hang) and serves garbage;
 * the injected clock moves the schedule; reads come in through batch ingest. PostgreSQL or
 * PGlite, as DATABASE_URL says.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { retroHuntWith } from '../../alerts/retro-hunt.ts';
import { adminTestContext, send } from '../../admin/admin.test-helper.ts';
import type { AlertRecord } from '../../alerts/payload.ts';
import { createAlertWorker } from '../../alerts/worker.ts';
import { claimedCollector } from '../../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../cache.ts';
import { runDueFeeds } from './schedule.ts';
import type { SyncResult } from './sync.ts';
import { ALERTS_PATH, watchlistPartPath, WATCHLISTS_PATH } from '../../platform/http/paths.ts';

const HOUR = 3_600_000;
const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const collector = await claimedCollector(ctx.deps);
const cache = createWatchlistCache(ctx.deps);
const worker = createAlertWorker(ctx.deps, cache);

// The feed server: what it serves is set by each test; it answers 304 to its own ETag.
const served: { status: number; body: string; etag: string | null; hang: boolean } = { status: 200, body: 'plate\n', etag: null, hang: false };
const seen: IncomingHttpHeaders[] = [];
const server = createServer((req, res) => {
  seen.push(req.headers);
  if (served.hang) return; // never answers: the hub's timeout must end the read
  if (served.etag && req.headers['if-none-match'] === served.etag) {
    res.writeHead(304, { etag: served.etag }).end();
    return;
  }
  res.writeHead(served.status, { 'content-type': 'text/csv', ...(served.etag ? { etag: served.etag } : {}) }).end(served.body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stolen.csv`;
t.teardown(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** One read per plate at `at`, through the real batch upload; the live matcher runs after. */
async function upload(plate: string, at: Date): Promise<void> {
  await uploadBatch(ctx.app, collector.apiKey, [
    { detection: sampleDetection({ plate: { text: plate, confidence: 0.9 }, timestamp: at.toISOString() }), plateCrop: jpegLike(300) },
  ]);
  cache.invalidate();
  while ((await worker.runOnce()) > 0) {
    /* drain */
  }
}

const start = new Date(ctx.clock.now().getTime() - 30 * 24 * HOUR).toISOString();
const alertsOf = async (listId: string) =>
  (
    (await (await send(ctx, operator, 'GET', `${ALERTS_PATH}?since=${start}&limit=100&watchlist_id=${listId}`)).json()) as {
      data: (AlertRecord & { historical?: boolean })[];
    }
  ).data;
const entriesOf = async (listId: string) =>
  (
    (await (await send(ctx, operator, 'GET', watchlistPartPath(listId, 'entries'))).json()) as {
      data: { plate_number: string; expires_at: string | null; priority: string | null }[];
    }
  ).data;
const feedOf = async (listId: string) => (await (await send(ctx, viewer, 'GET', watchlistPartPath(listId, 'feed'))).json()) as Record<string, unknown>;
/** The schedule's tick at the clock's time, with a short timeout for the hanging server. */
const tick = async (listId: string): Promise<SyncResult | undefined> =>
  (await runDueFeeds(ctx.deps, { timeoutMs: 500, hunt: retroHuntWith(undefined) })).get(listId);

const list = (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Stolen (feed)', priority: 'high' })).json()) as { id: string };
const feedPath = watchlistPartPath(list.id, 'feed');
// The alert list shows the lists one is subscribed to.
await send(ctx, operator, 'POST', watchlistPartPath(list.id, 'subscription'));

// Reads stored before any feed: one from yesterday (in the 7-day hunt) and one 10 days ago (outside).
const now0 = ctx.clock.now();
await upload('KX45MNP', new Date(now0.getTime() - 24 * HOUR));
await upload('OLD1234', new Date(now0.getTime() - 10 * 24 * HOUR));

t.test('setting a feed: validated, operators only', async (t) => {
  t.equal((await send(ctx, viewer, 'GET', feedPath)).status, 404, 'no feed yet');
  const good = { url: feedUrl, format: 'csv', schedule: '0 * * * *', retro_hunt_days: 7 };
  t.equal((await send(ctx, viewer, 'PUT', feedPath, good)).status, 403, 'a viewer cannot set it');
  for (const [why, body] of [
    ['plain http off the machine', { ...good, url: 'http://feeds.example.test/a.csv' }],
    ['another scheme', { ...good, url: 'file:///etc/passwd' }],
    ['credentials in the URL', { ...good, url: 'https://u:p@feeds.example.test/a.csv' }],
    ['a seconds field', { ...good, schedule: '* * * * * *' }],
    ['not cron', { ...good, schedule: 'hourly' }],
    ['a last-day field', { ...good, schedule: '0 3 L * *' }],
    // Issue 50 item 1: node-cron expanded these into arrays; the first aborted the process.
    ['a 20-digit range', { ...good, schedule: '0-99999999999999999999 * * * *' }],
    ['a 100-million range', { ...good, schedule: '0-99999999 * * * *' }],
    ['a huge step', { ...good, schedule: '*/99999999999 * * * *' }],
    ['a huge weekday range', { ...good, schedule: '0 0 * * 0-9999999' }],
    ['too many days', { ...good, retro_hunt_days: 31 }],
    ['an unknown format', { ...good, format: 'xml' }],
    ['an unknown field', { ...good, extra: 1 }],
  ] as const) {
    const res = await send(ctx, operator, 'PUT', feedPath, body);
    t.equal(res.status, 400, why);
  }
  t.equal((await send(ctx, viewer, 'GET', '/healthz')).status, 200, 'the hub still answers after the hostile schedules');
  const res = await send(ctx, operator, 'PUT', feedPath, good);
  t.equal(res.status, 200);
  t.match(await res.json(), { url: feedUrl, format: 'csv', schedule: '0 * * * *', retro_hunt_days: 7, last_status: null });
  t.equal((await send(ctx, operator, 'PUT', watchlistPartPath('00000000-0000-4000-8000-000000000000', 'feed'), good)).status, 404, 'no such list');
});

t.test('first read applies the feed; not due again until the next scheduled minute', async (t) => {
  served.body = 'plate,notes\nAB12CDE,blue van\n';
  served.etag = '"v1"';
  const first = await tick(list.id);
  t.match(first, { status: 'ok', added: 1, removed: 0, changed: 0, historical_hits: 0 });
  t.same(
    (await entriesOf(list.id)).map((e) => e.plate_number),
    ['AB12CDE'],
  );
  ctx.clock.advance(60_000);
  t.equal(await tick(list.id), undefined, 'the next scheduled minute has not come: not read');
  t.match(await feedOf(list.id), { last_status: 'ok', last_error: null, last_changes: { added: 1 } });
});

t.test('an unchanged feed is a 304 and changes nothing', async (t) => {
  ctx.clock.advance(HOUR);
  const before = seen.length;
  t.match(await tick(list.id), { status: 'not_modified' });
  t.equal(seen.length, before + 1, 'one request');
  t.equal(seen.at(-1)?.['if-none-match'], '"v1"', 'the stored ETag was sent back');
  t.same(
    (await entriesOf(list.id)).map((e) => e.plate_number),
    ['AB12CDE'],
  );
  t.match(await feedOf(list.id), { last_status: 'not_modified' });
});

t.test('a feed update adds a plate: the retro-hunt raises one historical hit for yesterday’s read', async (t) => {
  served.body = 'plate,notes,priority\nAB12CDE,blue van,\nKX45MNP,stolen 2026-01-14,critical\nOLD1234,,\n';
  served.etag = '"v2"';
  ctx.clock.advance(HOUR);
  t.match(await tick(list.id), { status: 'ok', added: 2, removed: 0, changed: 0, historical_hits: 1 });
  const alerts = await alertsOf(list.id);
  t.equal(alerts.length, 1, 'one alert: the read from 10 days ago is outside the 7-day hunt');
  t.match(alerts[0], { plate_number: 'KX45MNP', historical: true, match_kind: 'exact' });
  t.match(
    (await entriesOf(list.id)).find((e) => e.plate_number === 'KX45MNP'),
    { priority: 'critical' },
  );
  const audit = await ctx.database.sql<{ detail: Record<string, unknown> }>(
    `SELECT detail FROM audit_log WHERE action = 'watchlist.feed_update' AND target_id = $1 ORDER BY id`,
    [list.id],
  );
  t.equal(audit.length, 2, 'one audit row per applied update (the first read and this one)');
  t.match(audit[1]?.detail, { added: 2, removed: 0, changed: 0, historical_hits: 1, added_plates: ['KX45MNP', 'OLD1234'] });
});

t.test('reading the same feed again raises no second historical hit', async (t) => {
  t.equal((await send(ctx, operator, 'POST', `${feedPath}/update`)).status, 202, 'update now: the next tick reads it');
  t.match(await tick(list.id), { status: 'ok', added: 0, historical_hits: 0 });
  t.equal((await alertsOf(list.id)).length, 1);
});

t.test('bad feeds change nothing and are reported', async (t) => {
  const plates = async () => (await entriesOf(list.id)).map((e) => e.plate_number).sort();
  const before = await plates();
  const cases: [string, () => void, RegExp][] = [
    ['HTTP 500', () => Object.assign(served, { status: 500, body: 'oops', etag: null }), /HTTP 500/],
    ['a hang', () => Object.assign(served, { hang: true }), /could not be read/],
    ['garbage', () => Object.assign(served, { hang: false, status: 200, body: '\u0001\u0002<html>not a list</html>' }), /not a valid csv list/],
    ['a bad row', () => Object.assign(served, { body: 'plate,notes\nAB12CDE,\n!!!,x\n' }), /line 3/],
    ['an empty feed', () => Object.assign(served, { body: 'plate,notes\n' }), /would empty the list/],
  ];
  for (const [why, serve, error] of cases) {
    serve();
    ctx.clock.advance(HOUR);
    const result = await tick(list.id);
    t.match(result, { status: 'error', error }, why);
    t.same(await plates(), before, `${why}: the list is unchanged`);
    t.match(await feedOf(list.id), { last_status: 'error', last_error: error }, `${why}: the error is shown`);
  }
});

t.test('an expired entry stops matching', async (t) => {
  const expiry = new Date(ctx.clock.now().getTime() + 2 * HOUR);
  Object.assign(served, { status: 200, hang: false, etag: '"v3"', body: `plate,expires_at\nAB12CDE,\nKX45MNP,${expiry.toISOString()}\nOLD1234,\n` });
  ctx.clock.advance(HOUR);
  t.match(await tick(list.id), { status: 'ok', changed: 2, added: 0, removed: 0 }, 'notes and priority cleared, an expiry set');
  await upload('KX45MNP', ctx.clock.now());
  let live = (await alertsOf(list.id)).filter((a) => a.plate_number === 'KX45MNP');
  t.equal(live.length, 2, 'before its expiry the entry still matches a new read');
  t.notOk(live.find((a) => a.historical !== true)?.historical, 'a live alert carries no historical mark');
  ctx.clock.advance(3 * HOUR);
  await upload('KX45MNP', ctx.clock.now());
  live = (await alertsOf(list.id)).filter((a) => a.plate_number === 'KX45MNP');
  t.equal(live.length, 2, 'after it, no alert');
});

t.test('removing the feed', async (t) => {
  t.equal((await send(ctx, viewer, 'DELETE', feedPath)).status, 403);
  t.equal((await send(ctx, operator, 'DELETE', feedPath)).status, 204);
  t.equal((await send(ctx, operator, 'DELETE', feedPath)).status, 404);
  ctx.clock.advance(HOUR);
  t.equal(await tick(list.id), undefined, 'no feed, no read');
});

t.test('an OCR-tolerant list hunts with its own matching, as far back as it asks', async (t) => {
  const tolerant = (await (await send(ctx, operator, 'POST', WATCHLISTS_PATH, { name: 'Tolerant (feed)', ocr_tolerant: true })).json()) as { id: string };
  await send(ctx, operator, 'POST', watchlistPartPath(tolerant.id, 'subscription'));
  const res = await send(ctx, operator, 'PUT', watchlistPartPath(tolerant.id, 'feed'), { url: feedUrl, format: 'csv', retro_hunt_days: 30 });
  t.match(await res.json(), { schedule: '7 * * * *', retro_hunt_days: 30 }, 'the default schedule');
  // 7 and 1 are one confusion apart: the read OLD1234 from 10 days ago matches OLD7234.
  Object.assign(served, { status: 200, hang: false, etag: null, body: 'plate\nOLD7234\n' });
  t.match(await tick(tolerant.id), { status: 'ok', added: 1, historical_hits: 1 });
  t.match(await alertsOf(tolerant.id), [{ plate_number: 'OLD1234', match_kind: 'ocr', historical: true }]);
});
