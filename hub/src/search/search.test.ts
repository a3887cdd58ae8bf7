import t from 'tap';
import { confusionKey } from '@alpr/shared/detection/ocr';
import { adminTestContext, auditRows, send } from '../admin/admin.test-helper.ts';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { detectionPath, EVENTS_SEARCH_PATH, PLATE_AUTOCOMPLETE_PATH, SEARCH_PATH } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';

const ctx = await adminTestContext(t);
const viewer = await ctx.session('viewer');
const REASON = 'purpose=stolen_vehicle&reason=case%202026-117';

async function collectorAt(name: string, latitude: number, longitude: number) {
  const created = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: name, latitude, longitude });
  const enrolled = await claim(ctx.deps, { claim_code: created.claimCode, hardware_id: `hw-${name}` }, '192.0.2.1');
  return { id: enrolled.collector_id, key: enrolled.api_key };
}
const north = await collectorAt('North gate', 51.6, -0.1);
const south = await collectorAt('South yard', 51.4, -0.1);
const base = ctx.clock.now().getTime();
const at = (minutes: number) => new Date(base - minutes * 60_000).toISOString();

/** [plate, minutes ago, confidence, direction] per collector. */
async function upload(collector: { key: string }, reads: Array<[string, number, number, 'entering' | 'exiting' | 'unknown']>) {
  await uploadBatch(
    ctx.app,
    collector.key,
    reads.map(([text, ago, confidence, direction]) => ({
      detection: sampleDetection({ plate: { text, confidence }, timestamp: at(ago), vehicle: { direction } }),
      plateCrop: jpegLike(400),
    })),
  );
}
await upload(north, [
  ['AB12CDE', 50, 0.9, 'entering'],
  ['AB12CDE', 40, 0.8, 'exiting'],
  ['AB13XYZ', 30, 0.7, 'entering'],
  ['0BC12345', 20, 0.95, 'entering'],
  ['XY12CDE', 10, 0, 'unknown'],
]);
await upload(south, [
  ['AB12CDE', 45, 0.6, 'exiting'],
  ['QQ99CDE', 5, 0.99, 'entering'],
  ['0BC12346', 15, 0.9, 'exiting'],
]);

type Page = {
  data: Array<{
    id: string;
    plate_number: string;
    captured_at: string;
    confidence: number;
    direction: string;
    collector: { id: string; name: string };
    images: { full_url: string | null; crop_url: string | null };
    similarity?: number;
  }>;
  meta: { page: number; per_page: number; total: number; total_pages: number; total_is_lower_bound: boolean };
};
const search = async (query: string, path = EVENTS_SEARCH_PATH) => {
  const res = await send(ctx, viewer, 'GET', `${path}?${query}&${REASON}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
};
const plates = (p: Page) => p.data.map((d) => d.plate_number);

t.test('the confusion key in SQL is the shared one', async (t) => {
  const samples = ['O8C123', '0BC123', 'ZG7SIL', 'ABCDEFGHIJKLMNOPQRST', '1234567890', 'БГ123'];
  for (const s of samples) {
    const [row] = await ctx.database.sql<{ k: string }>('SELECT alpr_confusion_key($1) AS k', [s]);
    t.equal(row?.k, confusionKey(s), s);
  }
});

t.test('plate modes: exact, prefix, suffix, contains, fuzzy', async (t) => {
  t.same(plates(await search('plate=AB12CDE')), ['AB12CDE', 'AB12CDE', 'AB12CDE'], 'exact, newest first');
  t.same(plates(await search('plate=ab-12%20c0e')), ['AB12CDE', 'AB12CDE', 'AB12CDE'], 'normalized like the stored plate (D and 0 are one)');
  t.same(plates(await search('plate=AB1*')).sort(), ['AB12CDE', 'AB12CDE', 'AB12CDE', 'AB13XYZ']);
  t.same(plates(await search('plate=*CDE')).sort(), ['AB12CDE', 'AB12CDE', 'AB12CDE', 'QQ99CDE', 'XY12CDE']);
  t.same(plates(await search('plate=*12C*')).sort(), ['AB12CDE', 'AB12CDE', 'AB12CDE', 'XY12CDE']);
  const fuzzy = await search('plate=O8C12345&plate_fuzzy=true');
  t.same(plates(fuzzy), ['0BC12345', '0BC12346'], 'O8C12345 finds 0BC12345 first (the same plate to OCR), then one a character away (similarity 0.64)');
  t.equal(fuzzy.data[0]?.similarity, 1);
  t.ok((fuzzy.data[1]?.similarity ?? 0) > 0.6);
  t.same(plates(await search('plate=ZZZZZZ&plate_fuzzy=true')), [], 'nothing similar');
});

t.test('filters combine with every plate mode', async (t) => {
  t.same(plates(await search(`plate=AB12CDE&collector_id=${south.id}`)), ['AB12CDE']);
  t.equal((await search(`plate=*CDE&collector_id=${south.id},${north.id}`)).meta.total, 5, 'several collectors, comma-separated');
  t.equal((await search(`plate=*CDE&collector_id=${south.id}&collector_id=${north.id}`)).meta.total, 5, 'or repeated');
  t.same(plates(await search(`plate=*CDE&start_date=${encodeURIComponent(at(42))}&end_date=${encodeURIComponent(at(8))}`)), ['XY12CDE', 'AB12CDE']);
  t.same(plates(await search('plate=*CDE&min_confidence=0.85')).sort(), ['AB12CDE', 'QQ99CDE']);
  t.equal((await search('plate=*CDE&min_confidence=0')).meta.total, 5, 'min_confidence=0 keeps reads without a vendor confidence (stored as 0)');
  t.equal(
    (await search('plate=*CDE&min_confidence=0.01')).data.some((d) => d.plate_number === 'XY12CDE'),
    false,
    'any higher minimum leaves them out',
  );
  t.same(plates(await search('plate=AB12CDE&direction=leaving')), ['AB12CDE', 'AB12CDE'], 'leaving (the spec) is the stored exiting');
  t.same(plates(await search('plate=O8C12345&plate_fuzzy=true&lat_min=51.3&lat_max=51.5&lon_min=-0.2&lon_max=0')), ['0BC12346'], 'bounding box with fuzzy');
  const one = (await search('plate=AB13XYZ')).data[0];
  t.match(one, {
    collector: { id: north.id, name: 'North gate' },
    direction: 'entering',
    confidence: 0.7,
    images: { full_url: null, crop_url: /\/api\/v1\/images\/[0-9a-f]{64}\?exp=/ },
  });
});

t.test('pages, sorting and their edges', async (t) => {
  const first = await search('plate=*CDE&per_page=2');
  t.same(first.meta, { page: 1, per_page: 2, total: 5, total_pages: 3, total_is_lower_bound: false });
  const last = await search('plate=*CDE&per_page=2&page=3');
  t.equal(last.data.length, 1, 'the last page holds the rest');
  const past = await search('plate=*CDE&per_page=2&page=9');
  t.same(past.data, [], 'a page past the end is empty, not an error');
  t.equal(past.meta.total, 5);
  const asc = await search('plate=*CDE&sort=confidence&order=asc');
  t.same(
    asc.data.map((d) => d.confidence),
    [0, 0.6, 0.8, 0.9, 0.99],
  );
  t.equal((await search('')).meta.total, 8, 'no plate: every detection, filtered and paged');
});

t.test('bad parameters get a 400 naming the field; a purpose is required', async (t) => {
  for (const [query, field] of [
    ['per_page=101', 'per_page'],
    ['page=0', 'page'],
    ['start_date=yesterday', 'start_date'],
    ['start_date=9999-12-31T00:00:00Z', 'start_date'],
    ['collector_id=nope', 'collector_id'],
    ['min_confidence=1.5', 'min_confidence'],
    ['direction=sideways', 'direction'],
    ['lat_min=51', 'lat_min'],
    ['sort=colour', 'sort'],
    ['order=up', 'order'],
    ['plate=*', 'plate'],
    ['plate_fuzzy=true', 'plate'],
    ['plate=A%00B', 'plate'],
    ['colour=red', 'colour'],
    ['plate=AB&plate=CD', 'plate'],
    [`start_date=${encodeURIComponent(at(1))}&end_date=${encodeURIComponent(at(10))}`, 'end_date'],
  ] as const) {
    const res = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?${query}&${REASON}`);
    t.equal(res.status, 400, query);
    t.match(await res.json(), { error: { message: new RegExp(`^${field}: `) } }, `names ${field}`);
  }
  const noPurpose = await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=AB12CDE&reason=case%2042`);
  t.equal(noPurpose.status, 400, 'a reason alone no longer suffices');
  t.match(await noPurpose.json(), { error: { code: 'bad_request', message: /^purpose: a purpose is required/ } });
  t.equal((await send(ctx, null, 'GET', `${EVENTS_SEARCH_PATH}?${REASON}`)).status, 401);
});

t.test('every search is audited with who, the query, the count and the purpose; limits per spec', async (t) => {
  const res = await send(ctx, viewer, 'GET', `${SEARCH_PATH}?plate=AB12CDE&purpose=stolen_vehicle&reason=burglary%20case%2042`);
  t.equal(res.headers.get('x-ratelimit-limit'), '60', 'GET /api/v1/search: 60 a minute');
  t.equal(
    (await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=AB12CDE&${REASON}`)).headers.get('x-ratelimit-limit'),
    '120',
    'GET /api/v1/events/*: 120',
  );
  const rows = await ctx.database.sql<{ actor_user_id: string; detail: Record<string, unknown> }>(
    `SELECT actor_user_id, detail FROM audit_log WHERE action = 'search.detections' AND detail->>'reason' = 'burglary case 42'`,
  );
  t.match(rows, [
    { actor_user_id: viewer.user.user.id, detail: { purpose: 'stolen_vehicle', case_number: null, query: { plate: 'AB12CDE' }, result_count: 3 } },
  ]);
  t.notOk('purpose' in ((rows[0]?.detail['query'] as object | undefined) ?? {}), 'the purpose is recorded once, beside the query');
});

t.test('one detection, in full, audited; autocomplete', async (t) => {
  const id = (await search('plate=AB13XYZ')).data[0]?.id as string;
  const res = await send(ctx, viewer, 'GET', `${detectionPath(id)}?${REASON}`);
  t.equal(res.status, 200);
  t.match(await res.json(), {
    id,
    plate_number: 'AB13XYZ',
    plate_normalized: 'AB13XYZ',
    confidence: 0.7,
    direction: 'entering',
    collector: { id: north.id, name: 'North gate', latitude: 51.6, longitude: -0.1 },
    camera: { id: 'gate-1', name: 'gate-1' },
    position: { latitude: 51.6, longitude: -0.1 },
    images: { crop_sha256: /^[0-9a-f]{64}$/, crop_url: /sig=/ },
    chain: { seq: /^\d+$/, record_hash: /^[0-9a-f]{64}$/ },
    legal_holds: [],
  });
  t.match(await auditRows(ctx, 'search.detection_view', id), [{ detail: { purpose: 'stolen_vehicle', reason: 'case 2026-117' } }]);
  t.equal((await send(ctx, viewer, 'GET', `${detectionPath(id)}?reason=case%201`)).status, 400, 'a purpose is required');
  t.equal((await send(ctx, viewer, 'GET', `${detectionPath('999999999')}?${REASON}`)).status, 404);
  t.equal((await send(ctx, viewer, 'GET', `${detectionPath('abc')}?${REASON}`)).status, 404);
  const suggestions = await send(ctx, viewer, 'GET', `${PLATE_AUTOCOMPLETE_PATH}?q=ab1&limit=5&${REASON}`);
  t.same((await suggestions.json()) as unknown, {
    suggestions: [
      { plate: 'AB12CDE', sightings: 3 },
      { plate: 'AB13XYZ', sightings: 1 },
    ],
  });
  t.equal((await send(ctx, viewer, 'GET', `${PLATE_AUTOCOMPLETE_PATH}?q=a&${REASON}`)).status, 400);
});

t.test('fuzzy pages: similarity, then newest first, across plates seen many times', async (t) => {
  // Three plates similar to K7M445S to OCR, sighted several times each, interleaved in time.
  const reads: Array<[string, number, number, 'entering' | 'exiting' | 'unknown']> = [];
  for (let i = 0; i < 5; i++)
    reads.push(['K1M4455', 100 + i * 3, 0.9, 'entering'], ['K1M44556', 101 + i * 3, 0.9, 'exiting'], ['KTM4455', 102 + i * 3, 0.9, 'unknown']);
  await upload(north, reads.slice(0, 8));
  await upload(south, reads.slice(8));
  const all = await search('plate=K7M445S&plate_fuzzy=true&per_page=100');
  t.equal(all.meta.total, 10, 'K1M4455 and K1M44556 are similar; KTM4455 is not (similarity 0.45)');
  const keyed = all.data.map((d) => [d.similarity, d.captured_at]);
  const sorted = [...keyed].sort((a, b) => (b[0] as number) - (a[0] as number) || String(b[1]).localeCompare(String(a[1])));
  t.same(keyed, sorted, 'similarity desc, then capture time desc');
  t.same(plates(all), [...Array(5).fill('K1M4455'), ...Array(5).fill('K1M44556')]);
  const paged: string[] = [];
  for (let page = 1; page <= 4; page++) paged.push(...(await search(`plate=K7M445S&plate_fuzzy=true&per_page=3&page=${page}`)).data.map((d) => d.id));
  t.same(
    paged,
    all.data.map((d) => d.id),
    'pages of 3 add up to the whole list, in order',
  );
  t.same(
    plates(await search(`plate=K7M445S&plate_fuzzy=true&collector_id=${south.id}`)),
    ['K1M4455', 'K1M4455', 'K1M44556', 'K1M44556'],
    'with a collector filter',
  );
  const [known] = await ctx.database.sql<{ n: number }>(`SELECT count(*)::int AS n FROM plates WHERE plate_normalized IN ('K1M4455', 'K1M44556', 'KTM4455')`);
  t.equal(known?.n, 3, 'every stored plate is in the plates table (written by the insert trigger)');
});
