/**
 * Issue 52 "Done when": two operators at two different sites drive every read route, the live
 * channel, exports and signed image links; neither sees a byte of the other's reads (counts,
 * suggestions and convoy companions included), an admin sees both, the audit records the scope,
 * and a change to a user's sites holds at once, on an open socket too.
 */
import t from 'tap';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { adminTestContext, send, type Session } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { createLiveBroker } from '../live/broker.ts';
import { connect, type TestClient } from '../live/live.test-helper.ts';
import { attachLiveChannel } from '../live/upgrade.ts';
import {
  adminCollectorPartPath,
  adminUserActionPath,
  ADMIN_SITES_PATH,
  ADMIN_SITE_GROUPS_PATH,
  ALERTS_PATH,
  alertPath,
  detectionPath,
  EVENTS_SEARCH_PATH,
  EXPORT_DETECTIONS_PATH,
  investigationPath,
  LEGAL_HOLDS_PATH,
  LEGAL_HOLDS_RELEASE_PATH,
  PLATE_AUTOCOMPLETE_PATH,
  watchlistPartPath,
  WATCHLISTS_PATH,
} from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const db = ctx.database;
const broker = createLiveBroker(ctx.deps, { maxConnectionsPerUser: 5, pingIntervalMs: 60_000, statusPollMs: 3_600_000 });
await broker.start(db.listen.bind(db));
const server = serve({ fetch: ctx.app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const channel = attachLiveChannel(server, ctx.deps, broker);
const open: TestClient[] = [];
const WS = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
const worker = createAlertWorker(ctx.deps, createWatchlistCache(ctx.deps));

const admin = await ctx.session('admin');
const opA = await ctx.session('operator');
const opB = await ctx.session('operator');
const gateA = await claimedCollector(ctx.deps);
const gateB = await claimedCollector(ctx.deps);
const REASON = 'purpose=criminal_investigation&case_number=S-52&reason=two%20sites';

const json = async <T>(res: Response, status = 200): Promise<T> => {
  if (res.status !== status) throw new Error(`${res.status} (wanted ${status}): ${await res.text()}`);
  return (await res.json()) as T;
};
const get = async (s: Session, path: string): Promise<Response> => {
  // Every read here is one request; the per-minute limits are not what this test is about.
  await db.sql('DELETE FROM rate_limit_hits');
  return send(ctx, s, 'GET', path);
};

// Sites, a group, collectors moved, and each operator given one site (A directly, B through a group).
const siteA = await json<{ id: string }>(await send(ctx, admin, 'POST', ADMIN_SITES_PATH, { name: 'Estate A', time_zone: 'Europe/Paris' }), 201);
const siteB = await json<{ id: string }>(await send(ctx, admin, 'POST', ADMIN_SITES_PATH, { name: 'Shop B' }), 201);
const groupB = await json<{ id: string }>(await send(ctx, admin, 'POST', ADMIN_SITE_GROUPS_PATH, { name: 'Shops', site_ids: [siteB.id] }), 201);
await json(await send(ctx, admin, 'POST', adminCollectorPartPath(gateA.collectorId, 'site'), { site_id: siteA.id }));
await json(await send(ctx, admin, 'POST', adminCollectorPartPath(gateB.collectorId, 'site'), { site_id: siteB.id }));
await json(await send(ctx, admin, 'POST', adminUserActionPath(opA.user.user.id, 'sites'), { all_sites: false, site_ids: [siteA.id] }));
await json(await send(ctx, admin, 'POST', adminUserActionPath(opB.user.user.id, 'sites'), { all_sites: false, group_ids: [groupB.id] }));

// One shared watchlist both subscribe to; the same listed plate is read at both sites.
const watchlist = await json<{ id: string }>(await send(ctx, admin, 'POST', WATCHLISTS_PATH, { name: 'Shared', priority: 'high' }), 201);
await json(await send(ctx, admin, 'POST', watchlistPartPath(watchlist.id, 'entries'), { plate: 'SHARE01' }), 201);
for (const s of [opA, opB]) {
  const res = await send(ctx, s, 'POST', watchlistPartPath(watchlist.id, 'subscription'));
  if (res.status >= 300) throw new Error(`subscribe: ${res.status}`);
}

async function live(s: Session): Promise<TestClient> {
  const c = await connect(WS, { cookie: s.client.jar.header() });
  open.push(c);
  await c.next('connected');
  c.send({ type: 'subscribe', payload: { feed: 'detections:live' } });
  await c.next('subscribed');
  return c;
}
const [liveA, liveB, liveAdmin] = [await live(opA), await live(opB), await live(admin)];

/** Reads at a collector: [plate, seconds before now]. */
async function read(apiKey: string, reads: ReadonlyArray<readonly [string, number]>): Promise<void> {
  await uploadBatch(
    ctx.app,
    apiKey,
    reads.map(([text, ago]) => ({
      detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(ctx.clock.now().getTime() - ago * 1000).toISOString() }),
      fullScene: jpegLike(1500),
      plateCrop: jpegLike(400),
    })),
  );
  while ((await worker.runOnce()) > 0) {
    /* the alert NOTIFY reaches the broker */
  }
}
// A: the shared plate and its companion AAMATE1 twice, and AONLY11. B: the shared plate with BBMATE2 twice, and BONLY22.
await read(gateA.apiKey, [
  ['SHARE01', 600],
  ['AAMATE1', 590],
  ['SHARE01', 300],
  ['AAMATE1', 290],
  ['AONLY11', 200],
]);
await read(gateB.apiKey, [
  ['SHARE01', 500],
  ['BBMATE2', 490],
  ['SHARE01', 250],
  ['BBMATE2', 240],
  ['BONLY22', 100],
]);

const A_PLATES = ['AAMATE1', 'AONLY11'];
const B_PLATES = ['BBMATE2', 'BONLY22'];
/** Nothing of the other site in a body: its plates, its collector, its detection ids, its image hashes. */
const idsOf = async (collectorId: string) =>
  db.sql<{ id: string; full: string | null; crop: string | null }>(
    `SELECT id::text AS id, trim(full_image_hash) AS full, trim(crop_image_hash) AS crop FROM detections WHERE collector_id = $1`,
    [collectorId],
  );
const aRows = await idsOf(gateA.collectorId);
const bRows = await idsOf(gateB.collectorId);
t.equal(aRows.length, 5);
t.equal(bRows.length, 5);
function foreign(body: string, other: 'A' | 'B'): string[] {
  const plates = other === 'A' ? A_PLATES : B_PLATES;
  const rows = other === 'A' ? aRows : bRows;
  const collector = other === 'A' ? gateA.collectorId : gateB.collectorId;
  const hits = [...plates, ...plates.map(ocrNormalize), collector, ...rows.flatMap((r) => [r.full, r.crop]).filter((h): h is string => !!h)].filter((x) =>
    body.includes(x),
  );
  for (const r of rows) if (new RegExp(`"(id|detection_id)":"?${r.id}"?[,}]`).test(body)) hits.push(`detection ${r.id}`);
  return hits;
}

t.test('search, every mode, with its totals: only the own site', async (t) => {
  const cases: Array<[query: string, a: number, b: number, all: number]> = [
    ['plate=SHARE01', 2, 2, 4],
    ['plate=*MATE*', 2, 2, 4],
    ['plate=SHARE0*', 2, 2, 4],
    ['plate=SHARE01&plate_fuzzy=true', 2, 2, 4],
    ['plate=SHARE02&plate_match=one_edit', 2, 2, 4],
    ['', 5, 5, 10],
    [`collector_id=${gateB.collectorId}`, 0, 5, 5],
  ];
  for (const [query, a, b, all] of cases) {
    for (const [s, want, other] of [
      [opA, a, 'B'],
      [opB, b, 'A'],
    ] as const) {
      const res = await get(s, `${EVENTS_SEARCH_PATH}?${query}&${REASON}`);
      const text = await res.text();
      t.equal(res.status, 200, query);
      t.equal((JSON.parse(text) as { meta: { total: number } }).meta.total, want, `${query}: total`);
      t.same(foreign(text, other), [], `${query}: nothing of site ${other}`);
    }
    t.equal(
      (await json<{ meta: { total: number } }>(await get(admin, `${EVENTS_SEARCH_PATH}?${query}&${REASON}`))).meta.total,
      all,
      `${query}: the admin sees both`,
    );
  }
});

t.test('detection detail: another site answers the 404 of a missing detection', async (t) => {
  const missing = await get(opA, `${detectionPath('999999999')}?${REASON}`);
  const other = await get(opA, `${detectionPath(bRows[0]?.id ?? '')}?${REASON}`);
  t.equal(other.status, 404);
  t.same(await other.json(), await missing.json(), 'the same body');
  const own = await json<{ images: { crop_url: string | null } }>(await get(opA, `${detectionPath(aRows[0]?.id ?? '')}?${REASON}`));
  t.ok(own.images.crop_url, 'an own read has its signed image link');
  const image = await ctx.app.request(own.images.crop_url ?? '');
  t.equal(image.status, 200, 'and the link serves its image');
  t.equal((await get(admin, `${detectionPath(bRows[0]?.id ?? '')}?${REASON}`)).status, 200, 'the admin sees it');
});

t.test('autocomplete: suggestions and their counts from the own site only', async (t) => {
  const a = await json<{ suggestions: { plate: string; sightings: number }[] }>(await get(opA, `${PLATE_AUTOCOMPLETE_PATH}?q=SH&${REASON}`));
  t.same(a.suggestions, [{ plate: 'SHARE01', sightings: 2 }]);
  t.same(
    (await json<{ suggestions: unknown[] }>(await get(opA, `${PLATE_AUTOCOMPLETE_PATH}?q=BO&${REASON}`))).suggestions,
    [],
    "B's plate is not suggested to A",
  );
  t.same((await json<{ suggestions: unknown[] }>(await get(admin, `${PLATE_AUTOCOMPLETE_PATH}?q=SH&${REASON}`))).suggestions, [
    { plate: 'SHARE01', sightings: 4 },
  ]);
});

t.test('investigations: history, route, convoy companions, location activity', async (t) => {
  for (const [s, other] of [
    [opA, 'B'],
    [opB, 'A'],
  ] as const) {
    for (const kind of ['plate-history', 'route'] as const) {
      const text = await (await get(s, `${investigationPath(kind)}?plate=SHARE01&${REASON}`)).text();
      t.same(foreign(text, other), [], `${kind}: nothing of site ${other}`);
    }
    const convoy = await json<{ companions: { plate: string }[] }>(await get(s, `${investigationPath('convoy')}?plate=SHARE01&min_occasions=1&${REASON}`));
    t.same(convoy.companions.map((c) => c.plate).sort(), (other === 'B' ? A_PLATES : B_PLATES).map(ocrNormalize).sort(), 'companions at the own site only');
  }
  const day = ctx.clock.now().toISOString().slice(0, 10);
  const activity = await json<{ plates: unknown[] }>(
    await get(opA, `${investigationPath('location-activity')}?collector_id=${gateB.collectorId}&date=${day}&${REASON}`),
  );
  t.same(activity.plates, [], "B's collector reads as a quiet day to A");
  const convoy = await json<{ companions: { plate: string }[] }>(await get(admin, `${investigationPath('convoy')}?plate=SHARE01&min_occasions=1&${REASON}`));
  t.same(convoy.companions.map((c) => c.plate).sort(), [...A_PLATES, ...B_PLATES].map(ocrNormalize).sort(), 'the admin sees both sites’ companions');
});

t.test('evidence export: the own site, and nothing to export outside it', async (t) => {
  const own = await get(opA, `${EXPORT_DETECTIONS_PATH}?plate=SHARE01&${REASON}`);
  t.equal(own.status, 200);
  const zip = Buffer.from(await own.arrayBuffer());
  t.same(foreign(zip.toString('latin1'), 'B'), [], "the zip holds nothing of B's");
  t.equal((await get(opA, `${EXPORT_DETECTIONS_PATH}?plate=BONLY22&${REASON}`)).status, 404, "B's plate: nothing to export, as if never read");
  t.equal((await get(admin, `${EXPORT_DETECTIONS_PATH}?plate=BONLY22&${REASON}`)).status, 200);
});

t.test('alerts: the catch-up list, one by id, and handling', async (t) => {
  const since = new Date(ctx.clock.now().getTime() - 3_600_000).toISOString();
  const a = await json<{ data: { alert_id?: string; id?: string; collector_name?: string }[] }>(await get(opA, `${ALERTS_PATH}?since=${since}`));
  const b = await json<{ data: unknown[] }>(await get(opB, `${ALERTS_PATH}?since=${since}`));
  t.equal(a.data.length, 2, "A's two alerts");
  t.equal(b.data.length, 2, "B's two alerts");
  const bAlerts = await db.sql<{ id: string }>(
    `SELECT a.id::text AS id FROM alerts a JOIN detection_keys k ON k.detection_pk = a.detection_id WHERE k.collector_id = $1`,
    [gateB.collectorId],
  );
  const bAlert = bAlerts[0]?.id ?? '';
  t.same(foreign(JSON.stringify(a), 'B'), []);
  const missing = await get(opA, alertPath('999999999'));
  const other = await get(opA, alertPath(bAlert));
  t.equal(other.status, 404);
  t.same(await other.json(), await missing.json(), 'the same 404 as a missing alert');
  t.equal((await send(ctx, opA, 'POST', `${alertPath(bAlert)}/acknowledge`, {})).status, 404, 'cannot acknowledge it either');
  t.equal((await get(opB, alertPath(bAlert))).status, 200, 'its own operator sees it');
});

t.test('legal holds: the list names only holds on the own site', async (t) => {
  await db.sql('DELETE FROM rate_limit_hits');
  const placed = await send(ctx, admin, 'POST', LEGAL_HOLDS_PATH, { detection_ids: [aRows[0]?.id, bRows[0]?.id], case_id: 'HOLD-52', reason: 'two sites' });
  t.equal(placed.status, 201, await placed.clone().text());
  const a = await json<{ data: { detection_id: string }[] }>(await get(opA, `${LEGAL_HOLDS_PATH}?case_id=HOLD-52`));
  t.same(
    a.data.map((h) => h.detection_id),
    [aRows[0]?.id],
    "A lists the hold on A's read only",
  );
  t.equal((await json<{ data: unknown[] }>(await get(admin, `${LEGAL_HOLDS_PATH}?case_id=HOLD-52`))).data.length, 2, 'the admin lists both');

  // Placing: B's read by id is "no detection", as if missing; by plate, only A's sightings.
  const byId = await send(ctx, opA, 'POST', LEGAL_HOLDS_PATH, { detection_ids: [bRows[1]?.id], case_id: 'HOLD-A', reason: 'A only' });
  t.equal(byId.status, 404, "A cannot hold B's read");
  t.notMatch(await byId.text(), /BONLY|B0N1Y/, 'and is told nothing of it');
  const start = new Date(ctx.clock.now().getTime() - 3_600_000).toISOString();
  const end = ctx.clock.now().toISOString();
  const byPlate = await json<{ held: number }>(
    await send(ctx, opA, 'POST', LEGAL_HOLDS_PATH, { plate: 'SHARE01', start_date: start, end_date: end, case_id: 'HOLD-A', reason: 'A only' }),
    201,
  );
  t.equal(byPlate.held, 2, "A's two sightings of the shared plate, not B's");
  // Releasing: the case's holds on B's reads are not A's to release.
  const released = await json<{ released: number }>(await send(ctx, opA, 'POST', LEGAL_HOLDS_RELEASE_PATH, { case_id: 'HOLD-52', reason: 'done' }));
  t.equal(released.released, 1, "only the hold on A's read");
  t.equal((await json<{ data: unknown[] }>(await get(admin, `${LEGAL_HOLDS_PATH}?case_id=HOLD-52&active=true`))).data.length, 1, "B's hold stands");
});

t.test('the live channel: detections and alerts only from the own site; the admin gets both', async (t) => {
  const collectorsOf = (c: TestClient, type: string) =>
    new Set(
      c
        .all(type)
        .map((m) => JSON.stringify(m.payload))
        .map((p) =>
          p.includes(gateA.collectorId) || A_PLATES.some((x) => p.includes(x))
            ? 'A'
            : p.includes(gateB.collectorId) || B_PLATES.some((x) => p.includes(x))
              ? 'B'
              : '?',
        ),
    );
  t.equal(liveA.all('detection').length, 5);
  t.equal(liveB.all('detection').length, 5);
  t.equal(liveAdmin.all('detection').length, 10);
  t.same([...collectorsOf(liveA, 'detection')], ['A']);
  t.same([...collectorsOf(liveB, 'detection')], ['B']);
  t.equal(liveA.all('alert').length, 2, "A hears A's two alerts");
  t.equal(liveB.all('alert').length, 2, "B hears B's two alerts");
  for (const m of liveA.messages) t.same(foreign(JSON.stringify(m), 'B'), [], `${m.type}: nothing of B's`);
  for (const m of liveB.messages) t.same(foreign(JSON.stringify(m), 'A'), [], `${m.type}: nothing of A's`);
});

t.test("a change to a user's sites holds at once: the next request and the open socket", async (t) => {
  const before = liveA.all('detection').length;
  await json(await send(ctx, admin, 'POST', adminUserActionPath(opA.user.user.id, 'sites'), { all_sites: false, group_ids: [groupB.id] }));
  const res = await json<{ meta: { total: number } }>(await get(opA, `${EVENTS_SEARCH_PATH}?plate=BONLY22&${REASON}`));
  t.equal(res.meta.total, 1, 'A now finds B’s read');
  t.equal(
    (await json<{ meta: { total: number } }>(await get(opA, `${EVENTS_SEARCH_PATH}?plate=AONLY11&${REASON}`))).meta.total,
    0,
    'and no longer its old site',
  );
  await read(gateB.apiKey, [['BLATE33', 10]]);
  await read(gateA.apiKey, [['ALATE44', 10]]);
  // The admin hears both, in upload order: once it has ALATE44, A's socket has had its chance at both.
  const deadline = Date.now() + 10_000;
  while (!liveAdmin.all('detection').some((m) => JSON.stringify(m.payload).includes('A1ATE44')) && Date.now() < deadline) await sleep(20);
  const after = liveA.all('detection').slice(before);
  t.equal(after.length, 1, "one new detection on A's open socket, not A's old site's");
  t.match(JSON.stringify(after[0]?.payload), /B1ATE33/, "B's read, now A's site");
});

t.test('the audit records the scope in force at each lookup', async (t) => {
  const rows = await db.sql<{ actor: string; scope: { all: boolean; site_ids?: string[] } }>(
    `SELECT actor_user_id::text AS actor, detail->'scope' AS scope FROM audit_log WHERE action LIKE 'search.%' OR action = 'export.detections'`,
  );
  const parse = (s: unknown) =>
    typeof s === 'string' ? (JSON.parse(s) as { all: boolean; site_ids?: string[] }) : (s as { all: boolean; site_ids?: string[] });
  t.ok(rows.length > 20);
  t.ok(
    rows.every((r) => r.scope !== null),
    'every lookup row has its scope',
  );
  t.ok(
    rows.filter((r) => r.actor === admin.user.user.id).every((r) => parse(r.scope).all === true),
    'the admin: all sites',
  );
  t.ok(
    rows.some((r) => r.actor === opA.user.user.id && parse(r.scope).site_ids?.[0] === siteA.id),
    'A at first: site A',
  );
  t.ok(
    rows.some((r) => r.actor === opA.user.user.id && parse(r.scope).site_ids?.[0] === siteB.id),
    'A after the change: site B',
  );
});

// Registered last: the server stays up for every subtest above.
t.teardown(async () => {
  open.forEach((c) => c.ws.close());
  await broker.stop();
  channel.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
