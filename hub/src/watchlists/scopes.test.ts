/**
 * Alert scopes end to end (docs/watchlists.md "Scopes"): lists made through the API, reads
 * through the real batch upload from two collectors ("Gate A", "Gate B"), the live matcher and
 * the retro-hunt raising alerts, the alerts API showing the scope in words. PostgreSQL or
 * PGlite, as DATABASE_URL says.
 */
import t from 'tap';
import { ADMIN_IP, send, adminTestContext, auditRows } from '../admin/admin.test-helper.ts';
import type { AlertRecord } from '../alerts/payload.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { ALERTS_PATH, WATCHLISTS_PATH } from '../platform/http/paths.ts';
import { DEFAULT_SITE_ID } from '../db/schema/sites.ts';
import { createSite, setCollectorSite } from '../sites/manage.ts';
import { createWatchlistCache } from './cache.ts';
import { localWallTime } from './scope.ts';

const B = WATCHLISTS_PATH;
const HOUR = 3_600_000;
const ctx = await adminTestContext(t);
// Writes are limited to 30 a minute per user: each test signs in its own operator.
let operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const gateA = await claimedCollector(ctx.deps);
const gateB = await claimedCollector(ctx.deps);
await ctx.deps.db.sql(`UPDATE collectors SET site_name = 'Gate A' WHERE id = $1::uuid`, [gateA.collectorId]);
await ctx.deps.db.sql(`UPDATE collectors SET site_name = 'Gate B' WHERE id = $1::uuid`, [gateB.collectorId]);
const cache = createWatchlistCache(ctx.deps);
const worker = createAlertWorker(ctx.deps, cache);

/** The latest moment before the test clock's now, on the hour plus 30 min, whose Paris wall time passes `wanted`. */
function latestParis(wanted: (day: number, minute: number) => boolean): Date {
  const start = Math.floor(ctx.clock.now().getTime() / HOUR) * HOUR - HOUR + 30 * 60_000;
  for (let h = 0; h < 24 * 14; h++) {
    const at = new Date(start - h * HOUR);
    const { day, minute } = localWallTime(at, 'Europe/Paris');
    if (wanted(day, minute)) return at;
  }
  throw new Error('no such moment in two weeks');
}
// Tuesday to Friday 01:30 Paris: a weeknight (the window opened the evening before, Mon-Thu).
const night = latestParis((day, minute) => day >= 1 && day <= 4 && minute === 90);
// A weekday 12:30 Paris.
const noon = latestParis((day, minute) => day <= 4 && minute === 750);

async function upload(collector: { apiKey: string }, plate: string, at: Date, direction: 'entering' | 'exiting' = 'entering'): Promise<void> {
  await uploadBatch(ctx.app, collector.apiKey, [
    {
      detection: sampleDetection({
        plate: { text: plate, confidence: 0.9 },
        timestamp: at.toISOString(),
        vehicle: { direction, vehicle_type: 'car', color: 'blue', brand: 'Volvo', model: 'V70' },
      }),
      plateCrop: jpegLike(300),
    },
  ]);
  cache.invalidate();
  while ((await worker.runOnce()) > 0) {
    /* drain */
  }
}

async function newList(body: Record<string, unknown>): Promise<{ id: string; scope_words: string }> {
  const res = await send(ctx, operator, 'POST', B, body);
  if (res.status !== 201) throw new Error(`create ${res.status}: ${await res.text()}`);
  const list = (await res.json()) as { id: string; scope_words: string };
  // The alert list shows the lists one is subscribed to.
  await send(ctx, operator, 'POST', `${B}/${list.id}/subscription`);
  return list;
}
const since = new Date(ctx.clock.now().getTime() - 30 * 24 * HOUR).toISOString();
const alertsOf = async (listId: string) =>
  ((await (await send(ctx, operator, 'GET', `${ALERTS_PATH}?since=${since}&limit=100&watchlist_id=${listId}`)).json()) as { data: AlertRecord[] }).data;

const nightsAtGateB = {
  collectors: [gateB.collectorId],
  direction: 'entering',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  hours: { from: '22:00', to: '06:00' },
  time_zone: 'Europe/Paris',
};

t.test('hostile and wrong scopes are a clear 400', async (t) => {
  operator = await ctx.session('operator');
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['hour 24', { scope: { hours: { from: '24:00', to: '06:00' }, time_zone: 'UTC' } }, /HH:MM/],
    ['minute 60', { scope: { hours: { from: '22:60', to: '06:00' }, time_zone: 'UTC' } }, /HH:MM/],
    ['no zone', { scope: { hours: { from: '22:00', to: '06:00' } } }, /time_zone/],
    ['unknown zone', { scope: { days: ['mon'], time_zone: 'Mars/Olympus' } }, /not a time zone/],
    ['a day twice', { scope: { days: ['mon', 'mon'], time_zone: 'UTC' } }, /twice/],
    ['a made-up day', { scope: { days: ['funday'], time_zone: 'UTC' } }, /days/],
    [
      'too many collectors',
      { scope: { collectors: Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`) } },
      /collectors/,
    ],
    ['unknown collector', { scope: { collectors: ['00000000-0000-4000-8000-000000000999'] } }, /no such collector/],
    ['unknown site', { scope: { sites: ['00000000-0000-4000-8000-000000000999'] } }, /no such site/],
    ['a direction made up', { scope: { direction: 'sideways' } }, /direction/],
    ['an unknown scope field', { scope: { geofence: 'x' } }, /geofence|Unrecognized/],
    ['NUL in a camera id', { scope: { cameras: [{ collector_id: gateA.collectorId, camera_id: 'a\u0000b' }] } }, /camera_id|NUL|character/i],
    ['an ignore list with a scope', { kind: 'ignore', scope: { direction: 'entering' } }, /ignore list has no scope/],
    ['ignoring a list that is not an ignore list', { ignore_lists: ['00000000-0000-4000-8000-000000000999'] }, /not an ignore list/],
  ];
  for (const [why, extra, message] of cases) {
    const res = await send(ctx, operator, 'POST', B, { name: `Bad ${why}`, ...extra });
    t.equal(res.status, 400, why);
    t.match(await res.text(), message, `${why}: says why`);
  }
  const list = await newList({ name: 'Patch me' });
  t.equal((await send(ctx, operator, 'PATCH', `${B}/${list.id}`, { kind: 'ignore' })).status, 400, 'the kind cannot change');
  t.equal((await send(ctx, viewer, 'PATCH', `${B}/${list.id}`, { scope: null })).status, 403, 'a viewer cannot set a scope');
});

t.test('an allow-list alerts on an unknown plate at night at Gate B only', async (t) => {
  operator = await ctx.session('operator');
  const residents = await newList({ name: 'Residents', mode: 'allow_list', scope: nightsAtGateB });
  t.equal(residents.scope_words, 'allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris', 'the answer says the scope in words');
  await send(ctx, operator, 'POST', `${B}/${residents.id}/entries`, { plate: 'RES1001' });
  await upload(gateB, 'UNK9001', night);
  await upload(gateA, 'UNK9002', night);
  await upload(gateB, 'UNK9003', noon);
  await upload(gateB, 'RES1001', night);
  await upload(gateB, 'UNK9004', night, 'exiting');
  const alerts = await alertsOf(residents.id);
  t.same(
    alerts.map((a) => a.plate_number),
    ['UNK9001'],
    'only the unknown plate at night at Gate B, entering',
  );
  t.match(alerts[0], { match_kind: 'not_listed', matched_scope: 'allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris' });
  t.match(await auditRows(ctx, 'watchlist.create', residents.id), [{ detail: { mode: 'allow_list', scope: { time_zone: 'Europe/Paris' } } }]);
});

t.test('an ignore list quiets the lists it is attached to, and only those', async (t) => {
  operator = await ctx.session('operator');
  const staff = await newList({ name: 'Staff', kind: 'ignore' });
  await send(ctx, operator, 'POST', `${B}/${staff.id}/entries`, { plate: 'STF2001' });
  const quiet = await newList({ name: 'Quieted', ignore_lists: [staff.id] });
  const loud = await newList({ name: 'Not quieted' });
  for (const list of [quiet, loud]) await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'STF2001' });
  const staffHunt = await alertsOf(quiet.id);
  t.same(staffHunt, [], 'no historical hit either');
  await upload(gateA, 'STF2001', ctx.clock.now());
  t.same(await alertsOf(quiet.id), [], 'never on the list it is attached to');
  t.same(
    (await alertsOf(loud.id)).map((a) => a.plate_number),
    ['STF2001'],
    'still on a list it is not attached to',
  );
  t.same(await alertsOf(staff.id), [], 'an ignore list raises nothing itself');
  const shown = (await (await send(ctx, viewer, 'GET', `${B}/${quiet.id}`)).json()) as { ignore_lists: string[]; scope_words: string };
  t.same(shown.ignore_lists, [staff.id]);
  t.equal(shown.scope_words, 'listed, anywhere, either direction, always, ignoring Staff');
  // Detached: the plate alerts there again.
  t.equal((await send(ctx, operator, 'PATCH', `${B}/${quiet.id}`, { ignore_lists: [] })).status, 200);
  await upload(gateA, 'STF2001', ctx.clock.now());
  t.equal((await alertsOf(quiet.id)).length, 1, 'detached: alerts again');
});

t.test('the retro-hunt and one-misread tolerance honour the scope', async (t) => {
  operator = await ctx.session('operator');
  await upload(gateA, 'HNT3001', night);
  await upload(gateB, 'HNT3001', night);
  await upload(gateB, 'HNT3001', noon);
  const list = await newList({ name: 'Gate B nights, forgiving', forgive_one_misread: true, scope: nightsAtGateB });
  const res = await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate: 'HNT300X' });
  t.match(await res.json(), { retro_hunt: { hits: 1 } }, 'one read in scope, one misread away');
  const alerts = await alertsOf(list.id);
  t.match(alerts, [{ plate_number: 'HNT3001', historical: true, match_kind: 'one_edit', matched_scope: /Gate B, entering/ }]);
  // Live: one misread away, outside then inside.
  await upload(gateA, 'HNT300Y', night);
  t.equal((await alertsOf(list.id)).length, 1, 'Gate A: nothing live');
});

t.test('a scope can be read back, changed and cleared', async (t) => {
  operator = await ctx.session('operator');
  const list = await newList({ name: 'Changing', scope: { sites: ['00000000-0000-0000-0000-000000000001'], direction: 'exiting' } });
  t.equal(list.scope_words, 'listed, Default site, exiting, always');
  const res = await send(ctx, operator, 'PATCH', `${B}/${list.id}`, { scope: null });
  t.equal(res.status, 200);
  t.match(await res.json(), { scope: null, scope_words: 'listed, anywhere, either direction, always' });
});

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

t.test('CSV export and import keep the scope', async (t) => {
  operator = await ctx.session('operator');
  const source = await newList({ name: 'Exported residents', mode: 'allow_list', scope: nightsAtGateB });
  const empty = await (await send(ctx, operator, 'GET', `${B}/${source.id}/export`)).text();
  t.match(empty, /^plate,notes,list_mode,list_scope\r\n,,allow_list,"\{.*\}"\r\n$/, 'an empty list with a rule: one row carries it');
  await send(ctx, operator, 'POST', `${B}/${source.id}/entries`, { plate: 'RES5001', notes: 'flat 3' });
  const file = await (await send(ctx, operator, 'GET', `${B}/${source.id}/export`)).text();
  t.match(file, /^plate,notes,list_mode,list_scope\r\nRES5001,flat 3,allow_list,/);

  const copy = await newList({ name: 'Imported residents' });
  const res = await importCsv(copy.id, file);
  t.equal(res.status, 200);
  t.match(await res.json(), { added: 1, errors: [] });
  const shown = (await (await send(ctx, operator, 'GET', `${B}/${copy.id}`)).json()) as { mode: string; scope: unknown; scope_words: string };
  t.equal(shown.mode, 'allow_list');
  t.same(shown.scope, nightsAtGateB, 'the scope came along');
  t.equal(shown.scope_words, 'allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris');
  t.match(await auditRows(ctx, 'watchlist.import', copy.id), [{ detail: { list_settings: { mode: 'allow_list' } } }]);

  const plain = await newList({ name: 'Plain export' });
  await send(ctx, operator, 'POST', `${B}/${plain.id}/entries`, { plate: 'PLN5001' });
  t.equal(await (await send(ctx, operator, 'GET', `${B}/${plain.id}/export`)).text(), 'plate,notes\r\nPLN5001,\r\n', 'a list without a rule exports as before');

  for (const [why, csv, message] of [
    ['a bad mode', 'plate,list_mode\nAB1,sometimes\n', /list_mode must be/],
    ['not JSON', 'plate,list_scope\nAB1,{nope\n', /not JSON/],
    ['a bad hour', `plate,list_scope\nAB1,"${JSON.stringify({ hours: { from: '25:00', to: '01:00' }, time_zone: 'UTC' }).replace(/"/g, '""')}"\n`, /HH:MM/],
    ['two scopes', `plate,list_mode\nAB1,listed\nAB2,allow_list\n`, /same on every row/],
  ] as const) {
    const bad = await importCsv(plain.id, csv);
    t.equal(bad.status, 400, why);
    t.match(await bad.text(), message, `${why}: says why`);
  }
  t.same(((await (await send(ctx, operator, 'GET', `${B}/${plain.id}`)).json()) as { scope: unknown }).scope, null, 'a refused file changed nothing');
});

t.test("a live read is placed by its collector's site when it arrived; a check queued by an older hub is looked up", async (t) => {
  operator = await ctx.session('operator');
  const db = ctx.deps.db;
  const estate = await createSite(db, { name: 'Scoped estate' });
  const list = await newList({ name: 'Estate watch', scope: { sites: [estate.id] } });
  for (const plate of ['SIT0001', 'SIT0002', 'SIT0003']) await send(ctx, operator, 'POST', `${B}/${list.id}/entries`, { plate });
  const drain = async () => {
    cache.invalidate();
    while ((await worker.runOnce()) > 0) {
      /* drain */
    }
  };
  const arrive = (plate: string) =>
    uploadBatch(ctx.app, gateA.apiKey, [{ detection: sampleDetection({ plate: { text: plate, confidence: 0.9 }, timestamp: noon.toISOString() }) }]);

  // Read at the estate, matched after Gate A moved away: the alert check says where it arrived.
  await setCollectorSite(db, gateA.collectorId, estate.id);
  await arrive('SIT0001');
  await setCollectorSite(db, gateA.collectorId, DEFAULT_SITE_ID);
  const [queued] = await db.sql<{ site_id: string; camera_id: string; direction: string }>(
    `SELECT q.site_id::text AS site_id, q.camera_id, q.direction FROM alert_queue q
     JOIN detections d ON d.id = q.detection_id WHERE d.plate_number = 'SIT0001'`,
  );
  t.match(queued, { site_id: estate.id, camera_id: String, direction: String }, 'the check carries the site, camera and direction');
  // Read away from the estate: no alert, though Gate A is back at the estate when it is matched.
  await arrive('SIT0002');
  await setCollectorSite(db, gateA.collectorId, estate.id);
  await drain();
  t.same(
    (await alertsOf(list.id)).map((a) => a.plate_number),
    ['SIT0001'],
    'each read judged by where it arrived',
  );

  // A check as an older hub queued it (no context): looked up, the collector's site as it is now.
  await setCollectorSite(db, gateA.collectorId, DEFAULT_SITE_ID);
  await arrive('SIT0003');
  await db.sql(
    `UPDATE alert_queue SET collector_id = NULL, site_id = NULL, camera_id = NULL, direction = NULL, captured_at = NULL
     WHERE detection_id = (SELECT id FROM detections WHERE plate_number = 'SIT0003')`,
  );
  await setCollectorSite(db, gateA.collectorId, estate.id);
  await drain();
  t.same((await alertsOf(list.id)).map((a) => a.plate_number).sort(), ['SIT0001', 'SIT0003'], 'the old check is placed by a lookup');
  await setCollectorSite(db, gateA.collectorId, DEFAULT_SITE_ID);
});
