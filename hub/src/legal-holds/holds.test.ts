import t from 'tap';
import { adminTestContext, auditRows, send } from '../admin/admin.test-helper.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { detectionPath, LEGAL_HOLDS_PATH, LEGAL_HOLDS_RELEASE_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const collector = await claimedCollector(ctx.deps);
const base = ctx.clock.now().getTime() - 3_600_000;
const iso = (m: number) => new Date(base + m * 60_000).toISOString();
await uploadBatch(
  ctx.app,
  collector.apiKey,
  [
    ['HLD001', 0],
    ['HLD001', 10],
    ['HLD001', 50],
    ['OTHER1', 5],
  ].map(([text, m]) => ({ detection: sampleDetection({ plate: { text: String(text), confidence: 0.9 }, timestamp: iso(Number(m)) }) })),
);
const ids = async (plate: string) =>
  (await ctx.database.sql<{ id: string }>('SELECT id::text AS id FROM detections WHERE plate_number = $1 ORDER BY captured_at', [plate])).map((r) => r.id);

t.test('place by plate and time range, then by ids; twice changes nothing; audited', async (t) => {
  const byPlate = await send(ctx, operator, 'POST', LEGAL_HOLDS_PATH, {
    plate: 'hld-001',
    start_date: iso(-1),
    end_date: iso(20),
    case_id: 'CASE-1',
    reason: 'court order 2026/55',
  });
  t.equal(byPlate.status, 201);
  t.same(await byPlate.json(), { held: 2, already_held: 0, case_id: 'CASE-1' }, 'the two sightings in the range');
  const [first, , third] = await ids('HLD001');
  const byIds = await send(ctx, operator, 'POST', LEGAL_HOLDS_PATH, {
    detection_ids: [first, third],
    case_id: 'CASE-1',
    reason: 'court order 2026/55',
    hold_until: new Date(ctx.clock.now().getTime() + 86_400_000 * 365).toISOString(),
  });
  t.same(await byIds.json(), { held: 1, already_held: 1, case_id: 'CASE-1' });
  t.match(await auditRows(ctx, 'legal_hold.place', 'CASE-1'), [
    { actorUserId: operator.user.user.id, detail: { held: 2, reason: 'court order 2026/55' } },
    { detail: { held: 1, already_held: 1 } },
  ]);
  const detail = await send(ctx, viewer, 'GET', `${detectionPath(String(first))}?purpose=stolen_vehicle&reason=check%20hold`);
  t.match(await detail.json(), { legal_holds: [{ case_id: 'CASE-1', released_at: null }] }, 'the detection shows its hold');
  const list = await send(ctx, viewer, 'GET', `${LEGAL_HOLDS_PATH}?case_id=CASE-1&active=true`);
  t.equal(((await list.json()) as { data: unknown[] }).data.length, 3, 'viewers read');
});

t.test('release a case; refused and hostile requests', async (t) => {
  t.equal(
    (await send(ctx, viewer, 'POST', LEGAL_HOLDS_PATH, { plate: 'HLD001', start_date: iso(0), end_date: iso(1), case_id: 'X', reason: 'nope' })).status,
    403,
    'viewers cannot place',
  );
  for (const body of [
    { case_id: 'C', reason: 'no target' },
    { plate: 'HLD001', case_id: 'C', reason: 'no range' },
    { detection_ids: ['1'], plate: 'HLD001', start_date: iso(0), end_date: iso(1), case_id: 'C', reason: 'both targets' },
    { detection_ids: ['x1'], case_id: 'C', reason: 'bad id' },
    { detection_ids: ['1'], case_id: 'C\u0000', reason: 'NUL in case' },
    { detection_ids: ['1'], case_id: 'C', reason: 'past', hold_until: '2001-01-01T00:00:00Z' },
  ])
    t.equal((await send(ctx, operator, 'POST', LEGAL_HOLDS_PATH, body)).status, 400, JSON.stringify(body));
  t.equal(
    (await send(ctx, operator, 'POST', LEGAL_HOLDS_PATH, { detection_ids: ['999999999'], case_id: 'C', reason: 'unknown id' })).status,
    404,
    'an unknown detection: nothing held',
  );
  t.equal(
    (await send(ctx, operator, 'POST', LEGAL_HOLDS_PATH, { plate: 'NOPE99', start_date: iso(0), end_date: iso(60), case_id: 'C', reason: 'no match' })).status,
    404,
  );

  const released = await send(ctx, operator, 'POST', LEGAL_HOLDS_RELEASE_PATH, { case_id: 'CASE-1', reason: 'case closed' });
  t.same(await released.json(), { released: 3 });
  t.equal((await send(ctx, operator, 'POST', LEGAL_HOLDS_RELEASE_PATH, { case_id: 'CASE-1', reason: 'again' })).status, 404, 'nothing active left');
  t.match(await auditRows(ctx, 'legal_hold.release', 'CASE-1'), [{ detail: { released: 3, reason: 'case closed' } }]);
  const active = (await (await send(ctx, viewer, 'GET', `${LEGAL_HOLDS_PATH}?case_id=CASE-1&active=true`)).json()) as { data: unknown[] };
  t.same(active.data, []);
  const all = (await (await send(ctx, viewer, 'GET', `${LEGAL_HOLDS_PATH}?case_id=CASE-1`)).json()) as { data: Array<{ released_by: string }> };
  t.ok(all.data.length === 3 && all.data.every((h) => h.released_by === operator.user.user.id), 'released holds stay on record');
});
