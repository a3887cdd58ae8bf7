import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { INVESTIGATIONS_PATH, investigationPath } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import type { convoy, locationActivity, plateHistory, plateRoute } from './investigations.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const REASON = 'purpose=criminal_investigation&case_number=CR-7&reason=convoy%20case%207';

async function collectorAt(name: string, latitude: number, longitude: number) {
  const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: name, latitude, longitude });
  const enrolled = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: `hw-inv-${name}` }, '192.0.2.1');
  return { id: enrolled.collector_id, key: enrolled.api_key };
}
const A = await collectorAt('Bridge A', 51.6, -0.1);
const B = await collectorAt('Bridge B', 51.4, -0.2);
// 05:00 UTC on the hub's (test) day; every sighting below is on that day.
const base = Date.parse(ctx.clock.now().toISOString().slice(0, 10) + 'T05:00:00.000Z');
const min = (m: number) => new Date(base + m * 60_000).toISOString();

async function upload(collector: { key: string }, reads: Array<[string, number]>) {
  await uploadBatch(
    ctx.app,
    collector.key,
    reads.map(([text, m]) => ({ detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: min(m) }) })),
  );
}
// The target at A three times an hour apart, then at B. CMP001 travels with it every time,
// CMP002 twice, FAR001 once but ten minutes away.
await upload(A, [
  ['TGT001', 0],
  ['CMP001', 2],
  ['CMP002', 3],
  ['FAR001', 10],
  ['TGT001', 60],
  ['CMP001', 61],
  ['CMP002', 62],
  ['TGT001', 120],
  ['CMP001', 118],
]);
await upload(B, [
  ['TGT001', 180],
  ['CMP001', 181],
  ['CMP002', 240],
]);

/** The investigation's answer, typed by the verb that builds it. */
const get = async <T>(path: string): Promise<T> => {
  const res = await send(ctx, operator, 'GET', `${INVESTIGATIONS_PATH}/${path}&${REASON}`);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};
type History = Awaited<ReturnType<typeof plateHistory>>;
type Route = Awaited<ReturnType<typeof plateRoute>>;
type Convoy = Awaited<ReturnType<typeof convoy>>;
type Activity = Awaited<ReturnType<typeof locationActivity>>;

t.test('plate history: every sighting with where, newest first', async (t) => {
  const h = await get<History>('plate-history?plate=tgt-001');
  t.same(
    h.sightings.map((s) => [s.captured_at, s.collector.name]),
    [
      [min(180), 'Bridge B'],
      [min(120), 'Bridge A'],
      [min(60), 'Bridge A'],
      [min(0), 'Bridge A'],
    ],
  );
  t.match(h.sightings[0], { collector: { id: B.id, latitude: 51.4, longitude: -0.2 }, plate_number: 'TGT001' });
  t.equal(h.truncated, false);
});

t.test('route: ordered stops with the gaps between them', async (t) => {
  const r = await get<Route>('route?plate=TGT001');
  t.same(
    r.stops.map((s) => [s.collector.name, s.gap_seconds, s.moved]),
    [
      ['Bridge A', null, null],
      ['Bridge A', 3600, false],
      ['Bridge A', 3600, false],
      ['Bridge B', 3600, true],
    ],
  );
});

t.test('convoy: plates within 5 minutes of the target on at least 3 occasions, ranked', async (t) => {
  const c = await get<Convoy>('convoy?plate=TGT001');
  t.same(
    c.companions.map((x) => [x.plate, x.occasions, x.collectors]),
    [['CMP001', 4, 2]],
    'CMP002 only twice, FAR001 ten minutes off',
  );
  const looser = await get<Convoy>('convoy?plate=TGT001&min_occasions=2');
  t.same(
    looser.companions.map((x) => [x.plate, x.occasions]),
    [
      ['CMP001', 4],
      ['CMP002', 2],
    ],
  );
  const wider = await get<Convoy>('convoy?plate=TGT001&min_occasions=1&window_minutes=10');
  t.ok(
    wider.companions.some((x) => x.plate === 'FAR001'),
    'a 10-minute window reaches FAR001',
  );
});

t.test('location activity: one collector, one day, per hour and per plate', async (t) => {
  const day = new Date(base).toISOString().slice(0, 10);
  const a = await get<Activity>(`location-activity?collector_id=${A.id}&date=${day}`);
  t.equal(a.hours.length, 24);
  t.same(
    a.hours.filter((h) => h.detections > 0).map((h) => [h.hour, h.detections, h.plates]),
    [
      [5, 4, 4],
      [6, 4, 3],
      [7, 1, 1],
    ],
  );
  t.match(a.plates[0], { plate: /TGT001|CMP001/, sightings: 3 });
  const paris = await get<Activity>(`location-activity?collector_id=${A.id}&date=${day}&timezone=Europe/Paris`);
  t.same(
    paris.hours.filter((h) => h.detections > 0).map((h) => h.hour),
    [6, 7, 8],
    'hours in the site zone',
  );
});

t.test('parameters and audit', async (t) => {
  for (const [path, field] of [
    ['convoy?plate=TGT001&window_minutes=0', 'window_minutes'],
    ['plate-history?plate=---', 'plate'],
    ['route?plate=TGT001&colour=red', 'colour'],
    ['location-activity?collector_id=x&date=2026-01-01', 'collector_id'],
    [`location-activity?collector_id=${A.id}&date=2026-13-45`, 'date'],
    [`location-activity?collector_id=${A.id}&date=2026-01-01&timezone=Mars/Base`, 'timezone'],
    ['plate-history?plate=TGT001&start_date=2026-01-02T00:00:00Z&end_date=2026-01-01T00:00:00Z', 'end_date'],
  ] as const) {
    const res = await send(ctx, operator, 'GET', `${INVESTIGATIONS_PATH}/${path}&${REASON}`);
    t.equal(res.status, 400, path);
    t.match(await res.json(), { error: { message: new RegExp(`^${field}: `) } });
  }
  t.equal((await send(ctx, operator, 'GET', `${investigationPath('convoy')}?plate=TGT001&reason=convoy%20case%207`)).status, 400, 'a purpose is required');
  t.equal(
    (await send(ctx, operator, 'GET', `${investigationPath('convoy')}?plate=TGT001&purpose=criminal_investigation`)).status,
    400,
    'a case number where the purpose requires one',
  );
  const rows = await ctx.database.sql<{ detail: Record<string, unknown> }>(
    `SELECT detail FROM audit_log WHERE action = 'search.investigation' AND detail->>'kind' = 'convoy' ORDER BY id`,
  );
  t.match(rows[0], {
    detail: { purpose: 'criminal_investigation', case_number: 'CR-7', reason: 'convoy case 7', result_count: 1, query: { plate: 'TGT001' } },
  });
});
