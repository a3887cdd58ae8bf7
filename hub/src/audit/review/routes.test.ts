/**
 * GET /api/v1/admin/audit-review (docs/audit-review.md) over a crafted audit history written
 * as the lookup routes write it: the flags fire, each names its audit rows, detection views
 * count by the viewed plate, a held plate is excused; admins only; hostile queries refused.
 */
import t from 'tap';
import { adminTestContext, send } from '../../admin/admin.test-helper.ts';
import { writeAudit } from '../../platform/audit-writer.ts';
import { appendChainedDetections, insertCollector, sampleDetection } from '../../db/fixtures.test-helper.ts';
import { ADMIN_AUDIT_REVIEW_PATH } from '../../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const db = ctx.deps.db;
const HOUR = 3_600_000;
const now = ctx.clock.now().getTime();
// Local midnight UTC ten days ago: the crafted working days start here.
const dayStart = Math.floor(now / (24 * HOUR)) * 24 * HOUR - 10 * 24 * HOUR;

const collectorId = await insertCollector(db, 'Review gate');
const [listedId, heldId] = await appendChainedDetections(db, collectorId, [
  sampleDetection(collectorId, { plateNumber: 'KXT947', plateNormalized: 'KXT947', capturedAt: new Date(dayStart) }),
  sampleDetection(collectorId, { plateNumber: 'HXM273', plateNormalized: 'HXM273', capturedAt: new Date(dayStart + HOUR) }),
]);
if (!listedId || !heldId) throw new Error('fixture detections missing');
await db.sql(`INSERT INTO watchlists (created_by, name) VALUES ($1, 'Stolen')`, [admin.user.user.id]);
await db.sql(
  `INSERT INTO watchlist_entries (watchlist_id, plate_number, plate_normalized) SELECT id, 'KXT947', 'KXT947' FROM watchlists WHERE name = 'Stolen'`,
);
await db.sql(`INSERT INTO legal_holds (detection_id, case_id, reason) VALUES ($1, 'CASE-9', 'court order')`, [heldId]);

const lookup = (userId: string, at: number, action: string, detail: Record<string, unknown>, detectionId: string | null = null) =>
  writeAudit(db, {
    at: new Date(at),
    action,
    actor: { userId },
    targetType: detectionId ? 'detection' : null,
    targetId: detectionId,
    detail: { reason: 'review test', result_count: 1, ...detail },
  });

const op = operator.user.user.id;
const vw = viewer.user.user.id;
// The operator's working days: 24 searches of the listed plate between 09:00 and 16:00.
for (let i = 0; i < 24; i++)
  await lookup(op, dayStart + (i % 6) * 24 * HOUR + (9 + (i % 8)) * HOUR, 'search.detections', { purpose: 'stolen_vehicle', query: { plate: 'kxt947' } });
// Five views of the held plate's detection: a held plate is not "again and again".
for (let i = 0; i < 5; i++) await lookup(op, dayStart + i * 24 * HOUR + 11 * HOUR, 'search.detection_view', { purpose: 'stolen_vehicle' }, heldId);
// The viewer: an unlisted plate five times in a week.
for (let i = 0; i < 5; i++)
  await lookup(vw, dayStart + i * 24 * HOUR + 14 * HOUR, 'search.detections', { purpose: 'missing_person', query: { plate: 'NYE747' } });
// A pattern names no plate; an export of 1,500 rows is a bulk export.
await lookup(op, dayStart + 7 * 24 * HOUR + 3 * HOUR, 'search.detections', { purpose: 'stolen_vehicle', query: { plate: 'KX*' } });
await lookup(op, dayStart + 8 * 24 * HOUR + 10 * HOUR, 'export.detections', { purpose: 'stolen_vehicle', query: {}, result_count: 1500 });
// Autocomplete is not a lookup the review counts.
for (let i = 0; i < 6; i++) await lookup(vw, dayStart + 9 * 24 * HOUR + 10 * HOUR, 'search.autocomplete', { query: { plate: 'AUTO11' } });

interface Review {
  users: { user_id: string; email: string | null; lookups: number }[];
  by_purpose: { user_id: string; week: string; purpose: string; count: number }[];
  flags: { kind: string; user_id: string; plate: string | null; audit_ids: string[]; rows: { action: string; plate: string | null }[] }[];
}

t.test('flags over a crafted history, each with its audit rows', async (t) => {
  const res = await send(ctx, admin, 'GET', ADMIN_AUDIT_REVIEW_PATH);
  t.equal(res.status, 200);
  const review = (await res.json()) as Review;
  const byKind = (kind: string) => review.flags.filter((f) => f.kind === kind);

  t.same(
    byKind('repeated_plate').map((f) => [f.user_id, f.plate, f.audit_ids.length]),
    [
      [op, 'KXT947', 24],
      [vw, 'NYE747', 5],
    ],
    'a listed plate 24 times and an unlisted one 5 times, none with a case; the held plate viewed 5 times is excused',
  );
  t.same(
    byKind('plate_on_no_list').map((f) => [f.user_id, f.plate]),
    [[vw, 'NYE747']],
    'NYE747 is on no list; KXT947 is, and HXM273 is under a hold (a case)',
  );
  t.same(
    byKind('off_hours').map((f) => [f.user_id, f.rows.map((r) => r.action)]),
    [[op, ['search.detections']]],
    'the operator at 03:00 after a history of office hours',
  );
  t.same(
    byKind('bulk_export').map((f) => f.rows.map((r) => r.action)),
    [['export.detections']],
  );
  t.ok(
    review.flags.every((f) => f.rows.length === f.audit_ids.length && f.audit_ids.length > 0),
    'every flag carries the rows behind it',
  );
  const opViews = review.by_purpose.filter((r) => r.user_id === op).reduce((n, r) => n + r.count, 0);
  t.equal(opViews, 24 + 5 + 2, 'the operator: 24 searches, 5 views, a pattern search and an export, by purpose');
  t.notOk(
    review.users.some((u) => u.user_id === vw && u.lookups !== 5),
    'autocomplete is not counted',
  );
  t.equal(review.users.find((u) => u.user_id === op)?.email, operator.user.email);
});

t.test('one user, another zone, a span; admins only; hostile queries refused', async (t) => {
  const mine = (await (await send(ctx, admin, 'GET', `${ADMIN_AUDIT_REVIEW_PATH}?user_id=${vw}&tz=Europe%2FBerlin`)).json()) as Review;
  t.same([...new Set(mine.by_purpose.map((r) => r.user_id))], [vw]);
  t.equal((await send(ctx, operator, 'GET', ADMIN_AUDIT_REVIEW_PATH)).status, 403);
  t.equal((await send(ctx, viewer, 'GET', ADMIN_AUDIT_REVIEW_PATH)).status, 403);
  const since = new Date(now - 400 * 24 * HOUR).toISOString();
  for (const bad of [
    'tz=Mars%2FOlympus',
    `since=${encodeURIComponent(since)}`,
    'since=yesterday',
    'user_id=1',
    'colour=red',
    'tz=%00',
    `until=${encodeURIComponent(new Date(now - 40 * 24 * HOUR).toISOString())}&since=${encodeURIComponent(new Date(now).toISOString())}`,
  ])
    t.equal((await send(ctx, admin, 'GET', `${ADMIN_AUDIT_REVIEW_PATH}?${bad}`)).status, 400, bad);
});
