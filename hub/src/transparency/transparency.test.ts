/**
 * The public account (docs/transparency.md) over a crafted history of five months: reads
 * folded at ingest and reads still stored, alerts confirmed and misread, lookups with
 * purposes, holds and exports written as their routes write them. The expected figures are
 * tallied here from the test's own inputs, not by the loader's SQL. Also: off answers 404,
 * no plate, email or case number leaks, hostile query strings change nothing, the figures
 * are computed at most once a minute, and the address limit holds.
 */
import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { writeAudit } from '../platform/audit-writer.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from '../db/fixtures.test-helper.ts';
import type { PublicAccount } from './account.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const operator = await ctx.session('operator');
const db = ctx.deps.db;
const HOUR = 3_600_000;
const now = ctx.clock.now();
const monthStart = (back: number): number => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
const monthKey = (back: number): string => new Date(monthStart(back)).toISOString().slice(0, 7);
// An instant inside month `back`: an hour in for past months, halfway to now for this one.
const inMonth = (back: number, hours = 1): Date =>
  new Date(back === 0 ? monthStart(0) + Math.floor((now.getTime() - monthStart(0)) / 2) : monthStart(back) + hours * HOUR);

// ---- The crafted history, and the figures it should give, tallied as it is written.
type Tally = {
  cameras: Set<string>;
  folded: number;
  stored: number;
  hits: number;
  confirmed: number;
  misread: number;
  byPurpose: Record<string, number>;
  holds: number;
  exports: number;
};
const expected = new Map<string, Tally>();
const tally = (back: number): Tally => {
  const key = monthKey(back);
  let m = expected.get(key);
  if (!m) expected.set(key, (m = { cameras: new Set(), folded: 0, stored: 0, hits: 0, confirmed: 0, misread: 0, byPurpose: {}, holds: 0, exports: 0 }));
  return m;
};
const PLATES = ['KXT947', 'HXM273', 'NYE747', 'QRZ518'];
const CASE = 'CR-2026-4411';

const north = await insertCollector(db, 'North gate');
const south = await insertCollector(db, 'South gate');
await db.sql(`INSERT INTO watchlists (created_by, name) VALUES ($1, 'Stolen')`, [admin.user.user.id]);
const [list] = await db.sql<{ id: string }>(`SELECT id::text AS id FROM watchlists WHERE name = 'Stolen'`);

// Stored reads: month 0 two at north/cam-1, month 1 one at south/cam-9, month 3 three at north (cam-1, cam-2).
const stored: Array<{ back: number; collector: string; camera: string; plate: string }> = [
  { back: 0, collector: north, camera: 'cam-1', plate: 'KXT947' },
  { back: 0, collector: north, camera: 'cam-1', plate: 'HXM273' },
  { back: 1, collector: south, camera: 'cam-9', plate: 'NYE747' },
  { back: 3, collector: north, camera: 'cam-1', plate: 'QRZ518' },
  { back: 3, collector: north, camera: 'cam-2', plate: 'KXT947' },
  { back: 3, collector: north, camera: 'cam-2', plate: 'HXM273' },
];
const detectionIds: string[] = [];
for (const [i, s] of stored.entries()) {
  const [id] = await appendChainedDetections(db, s.collector, [
    sampleDetection(s.collector, { cameraId: s.camera, plateNumber: s.plate, plateNormalized: s.plate, capturedAt: inMonth(s.back, 1 + i) }),
  ]);
  if (!id) throw new Error('fixture detection missing');
  detectionIds.push(id);
  tally(s.back).stored += 1;
  tally(s.back).cameras.add(`${s.collector}/${s.camera}`);
}
// Reads folded at ingest (camera_read_hours): month 0 and 1 have them (more than the stored
// reads: the non-hits were removed), month 3 has none left (the table keeps 5 weeks), and
// month 2 has folded reads from a camera with no read stored at all.
const folded: Array<{ back: number; collector: string; camera: string; reads: number }> = [
  { back: 0, collector: north, camera: 'cam-1', reads: 40 },
  { back: 0, collector: south, camera: 'cam-9', reads: 5 },
  { back: 1, collector: south, camera: 'cam-9', reads: 17 },
  { back: 1, collector: south, camera: 'cam-9', reads: 4 },
  { back: 2, collector: north, camera: 'cam-3', reads: 9 },
];
for (const [i, f] of folded.entries()) {
  await db.sql(`INSERT INTO camera_read_hours (collector_id, camera_id, hour, reads) VALUES ($1, $2, $3, $4)`, [
    f.collector,
    f.camera,
    new Date(Math.floor(inMonth(f.back, 2 + i).getTime() / HOUR) * HOUR).toISOString(),
    f.reads,
  ]);
  tally(f.back).folded += f.reads;
  tally(f.back).cameras.add(`${f.collector}/${f.camera}`);
}
// Alerts: month 0 one confirmed and one unverified, month 3 one misread and one confirmed.
const alerts: Array<{ back: number; detection: number; verification: 'unverified' | 'confirmed' | 'misread' }> = [
  { back: 0, detection: 0, verification: 'confirmed' },
  { back: 0, detection: 1, verification: 'unverified' },
  { back: 3, detection: 3, verification: 'misread' },
  { back: 3, detection: 4, verification: 'confirmed' },
];
for (const a of alerts) {
  await db.sql(
    `INSERT INTO alerts (detection_id, watchlist_id, created_at, verification, verified_by, verified_at, verification_note)
     VALUES ($1, $2::uuid, $3, $4, $5::uuid, $6, $7)`,
    [
      detectionIds[a.detection],
      list?.id,
      inMonth(a.back, 10).toISOString(),
      a.verification,
      a.verification === 'unverified' ? null : operator.user.user.id,
      a.verification === 'unverified' ? null : inMonth(a.back, 11).toISOString(),
      a.verification === 'unverified' ? null : `checked ${PLATES[0]}`,
    ],
  );
  const m = tally(a.back);
  m.hits += 1;
  if (a.verification === 'confirmed') m.confirmed += 1;
  if (a.verification === 'misread') m.misread += 1;
}
// Lookups as the routes audit them (search/lookup-audit.ts): purpose at the top level, the
// plate in the query. 'inv' is no purpose code, and old rows have none at all.
const lookups: Array<{ back: number; action: string; purpose?: string; inQuery?: boolean }> = [
  { back: 0, action: 'search.detections', purpose: 'stolen_vehicle' },
  { back: 0, action: 'search.detections', purpose: 'stolen_vehicle' },
  { back: 0, action: 'search.detection_view', purpose: 'criminal_investigation' },
  { back: 0, action: 'export.detections', purpose: 'criminal_investigation' },
  { back: 1, action: 'search.investigation', purpose: 'missing_person', inQuery: true },
  { back: 1, action: 'search.detections', purpose: 'inv' },
  { back: 4, action: 'search.detections' },
  { back: 4, action: 'export.detections', purpose: 'wanted_person' },
  { back: 4, action: 'export.detections', purpose: 'wanted_person' },
];
const LABELS: Record<string, string> = {
  stolen_vehicle: 'Stolen vehicle',
  criminal_investigation: 'Criminal investigation',
  missing_person: 'Missing or endangered person',
  wanted_person: 'Wanted person (warrant)',
  none_stated: 'no purpose stated',
};
for (const [i, l] of lookups.entries()) {
  const why = l.purpose === undefined ? {} : { purpose: l.purpose, case_number: CASE };
  await writeAudit(db, {
    at: inMonth(l.back, 20 + i),
    action: l.action,
    actor: { userId: operator.user.user.id },
    detail: l.inQuery
      ? { reason: 'lookup', query: { plate: PLATES[2], ...why } }
      : { reason: 'lookup', ...why, query: { plate: PLATES[i % 4] }, result_count: 3 },
  });
  const m = tally(l.back);
  const key = l.purpose !== undefined && l.purpose in LABELS ? l.purpose : 'none_stated';
  m.byPurpose[key] = (m.byPurpose[key] ?? 0) + 1;
  if (l.action === 'export.detections') m.exports += 1;
}
// Holds, as legal-holds/holds.ts audits them (the plate is in the detail: it must not show).
for (const back of [1, 1, 3]) {
  await writeAudit(db, {
    at: inMonth(back, 30),
    action: 'legal_hold.place',
    actor: { userId: admin.user.user.id },
    targetType: 'case',
    targetId: CASE,
    detail: { reason: 'court order', held: 1, target: { plate: PLATES[3] } },
  });
  tally(back).holds += 1;
}
// Not counted: autocomplete, a release, and a search 13 months back (outside the year shown).
await writeAudit(db, { at: inMonth(0, 2), action: 'search.autocomplete', actor: { userId: operator.user.user.id }, detail: { query: { plate: 'KX' } } });
await writeAudit(db, { at: inMonth(0, 3), action: 'legal_hold.release', actor: { userId: admin.user.user.id }, targetType: 'case', targetId: CASE });
await writeAudit(db, { at: inMonth(13), action: 'search.detections', actor: { userId: operator.user.user.id }, detail: { purpose: 'stolen_vehicle' } });

t.test('off: both routes answer 404 and write nothing', async (t) => {
  t.equal(ctx.deps.config.transparency, false, 'off by default');
  for (const path of ['/transparency', '/transparency.json']) {
    const res = await send(ctx, null, 'GET', path);
    t.equal(res.status, 404, path);
    t.equal(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
  }
  const [hits] = await db.sql<{ n: string }>(`SELECT count(*) AS n FROM rate_limit_hits WHERE key LIKE 'public.transparency:%'`);
  t.equal(Number(hits?.n), 0, 'no rate-limit row either');
});

const expectedMonths = () => {
  const out = [];
  for (let back = 11; back >= 0; back--) {
    const m = expected.get(monthKey(back));
    out.push({
      month: monthKey(back),
      cameras: m?.cameras.size ?? 0,
      reads: Math.max(m?.folded ?? 0, m?.stored ?? 0),
      hits: m?.hits ?? 0,
      confirmed_hits: m?.confirmed ?? 0,
      misread_hits: m?.misread ?? 0,
      searches: Object.values(m?.byPurpose ?? {}).reduce((a, b) => a + b, 0),
      searches_by_purpose: Object.fromEntries(Object.entries(m?.byPurpose ?? {}).sort(([a], [b]) => a.localeCompare(b))),
      legal_holds_placed: m?.holds ?? 0,
      evidence_exports: m?.exports ?? 0,
    });
  }
  return out;
};

t.test('on: the JSON gives the crafted figures month by month', async (t) => {
  ctx.deps.config.transparency = true;
  const res = await send(ctx, null, 'GET', '/transparency.json');
  t.equal(res.status, 200);
  t.match(res.headers.get('cache-control') ?? '', /max-age=60/);
  const account = (await res.json()) as PublicAccount;
  t.same(account.months, expectedMonths(), 'every month as tallied from the inputs');
  t.equal(account.months.length, 12, 'twelve months');
  // Spot checks written out by hand, so a wrong tally above cannot hide a wrong account.
  const thisMonth = account.months[11];
  t.equal(thisMonth?.reads, 45, 'this month: 45 folded reads beat 2 stored');
  t.equal(thisMonth?.cameras, 2, 'north/cam-1 and south/cam-9');
  t.equal(account.months[8]?.reads, 3, 'three months back: the 3 stored reads (no folded counts left)');
  t.equal(account.months[8]?.misread_hits, 1);
  t.same(account.months[10]?.searches_by_purpose, { missing_person: 1, none_stated: 1 }, "'inv' counts as no purpose");
  t.equal(account.months[7]?.evidence_exports, 2);
  t.same(account.purpose_labels, Object.fromEntries(Object.entries(LABELS)));
  t.same(
    account.purposes.map((p) => [p.code, p.case_number_required]),
    [
      ['alert_verification', false],
      ['criminal_investigation', true],
      ['missing_person', false],
      ['stolen_plate', false],
      ['stolen_vehicle', false],
      ['wanted_person', true],
    ],
    'the active purposes and whether each needs a case number',
  );
  t.equal(account.retention.preset, 'default');
  t.same(
    account.retention.tiers.map((x) => x.kept),
    ['7 years', '7 years', '7 years', 'while a hold record exists; hold records 7 years after the hold ends', '1 year', '7 years'],
  );
});

t.test('no plate, email, case number or note in the HTML or the JSON', async (t) => {
  const html = await (await send(ctx, null, 'GET', '/transparency')).text();
  const json = await (await send(ctx, null, 'GET', '/transparency.json')).text();
  t.match(html, /<h1>Public account<\/h1>/);
  t.notMatch(html, /<nav/, 'no dashboard navigation');
  t.match(html, /Missing or endangered person/);
  for (const secret of [...PLATES, admin.user.email, operator.user.email, CASE, 'court order', north, south, 'cam-1', 'North gate']) {
    t.notOk(html.includes(secret), `HTML has no ${secret}`);
    t.notOk(json.includes(secret), `JSON has no ${secret}`);
  }
});

t.test('hostile query strings are ignored or refused, never answered differently', async (t) => {
  const plain = await (await send(ctx, null, 'GET', '/transparency.json')).text();
  for (const q of ["month=' OR 1=1--", 'months=100000', 'purpose[]=%3Cscript%3E', 'x=' + 'A'.repeat(3000), '%00=%ff']) {
    const res = await send(ctx, null, 'GET', `/transparency.json?${q}`);
    t.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `${q.slice(0, 30)}: ${res.status}`);
    if (res.status === 200) t.equal(await res.text(), plain, `${q.slice(0, 30)}: same account`);
  }
  const page = await send(ctx, null, 'GET', '/transparency?next=%3Cscript%3Ealert(1)%3C/script%3E');
  t.ok(page.status < 500);
  t.notMatch(await page.text(), /<script>alert/);
});

t.test('computed at most once a minute', async (t) => {
  const before = (await (await send(ctx, null, 'GET', '/transparency.json')).json()) as PublicAccount;
  await writeAudit(db, { at: inMonth(0, 5), action: 'export.detections', actor: { userId: operator.user.user.id }, detail: { purpose: 'stolen_vehicle' } });
  const same = (await (await send(ctx, null, 'GET', '/transparency.json')).json()) as PublicAccount;
  t.same(same, before, 'within the minute: the kept figures');
  ctx.clock.advance(61_000);
  const after = (await (await send(ctx, null, 'GET', '/transparency.json')).json()) as PublicAccount;
  t.equal(after.months[11]?.evidence_exports, (before.months[11]?.evidence_exports ?? 0) + 1, 'a minute later: the new export counts');
});

t.test('an address that keeps asking is limited', async (t) => {
  ctx.clock.advance(120_000);
  const statuses: number[] = [];
  for (let i = 0; i < 35; i++) statuses.push((await send(ctx, null, 'GET', '/transparency.json')).status);
  t.equal(statuses[0], 200);
  t.ok(statuses.includes(429), 'refused with 429 within 35 requests in the same instant');
});

t.test('off again: 404', async (t) => {
  ctx.deps.config.transparency = false;
  t.equal((await send(ctx, null, 'GET', '/transparency')).status, 404);
});
