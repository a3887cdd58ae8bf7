import t from 'tap';
import { adminTestContext, auditRows, send } from '../../admin/admin.test-helper.ts';
import {
  ADMIN_AUDIT_PATH,
  ADMIN_PURPOSES_PATH,
  adminPurposeActionPath,
  detectionPath,
  EVENTS_SEARCH_PATH,
  EXPORT_DETECTIONS_PATH,
  investigationPath,
  PLATE_AUTOCOMPLETE_PATH,
  PURPOSES_PATH,
} from '../../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const viewer = await ctx.session('viewer');

type Purpose = { code: string; label: string; case_number_required: boolean; active: boolean; retired_at: string | null };
const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
const activeCodes = async () => (await json<{ data: Purpose[] }>(await send(ctx, viewer, 'GET', PURPOSES_PATH))).data.map((p) => p.code);
const search = (query: string) => send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=AB12CDE&${query}`);

t.test('a new hub ships the default purposes; every signed-in user may list the active ones', async (t) => {
  const codes = await activeCodes();
  for (const code of ['stolen_vehicle', 'stolen_plate', 'missing_person', 'wanted_person', 'criminal_investigation', 'alert_verification'])
    t.ok(codes.includes(code), code);
  const all = await json<{ data: Purpose[] }>(await send(ctx, viewer, 'GET', PURPOSES_PATH));
  t.match(
    all.data.find((p) => p.code === 'criminal_investigation'),
    { label: 'Criminal investigation', case_number_required: true, active: true },
  );
  t.equal((await send(ctx, null, 'GET', PURPOSES_PATH)).status, 401);
});

t.test('a lookup names a purpose; a reason alone is refused; the note is optional', async (t) => {
  const alone = await search('reason=inv%20case');
  t.equal(alone.status, 400);
  t.match(await alone.json(), { error: { code: 'bad_request', message: /^purpose: a purpose is required/ } });
  t.equal((await search('purpose=stolen_vehicle')).status, 200, 'a purpose without a note');
  t.equal((await search('purpose=stolen_vehicle&reason=')).status, 200, 'a blank note counts as none');
  t.equal((await search('purpose=stolen_vehicle&reason=ab')).status, 400, 'a note, when given, says something');
  const noCase = await search('purpose=criminal_investigation&reason=burglary');
  t.equal(noCase.status, 400);
  t.match(await noCase.json(), { error: { message: /^case_number: required for the purpose criminal_investigation/ } });
  t.equal((await search('purpose=criminal_investigation&case_number=CR%2F26%2F4411&reason=burglary')).status, 200);
  const rows = await ctx.database.sql<{ detail: Record<string, unknown> }>(
    `SELECT detail FROM audit_log WHERE action = 'search.detections' AND detail->>'case_number' = 'CR/26/4411'`,
  );
  t.match(rows, [{ detail: { purpose: 'criminal_investigation', case_number: 'CR/26/4411', reason: 'burglary', query: { plate: 'AB12CDE' } } }]);
});

t.test('hostile purposes and case numbers get a 400 naming the field, before anything is read', async (t) => {
  const before = (await ctx.database.sql<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'search.detections'`))[0]?.n;
  for (const [query, field] of [
    ['purpose=no_such_purpose', 'purpose'],
    ['purpose=stolen%00vehicle', 'purpose'],
    ['purpose=%ED%A0%80', 'purpose'],
    ['purpose=STOLEN_VEHICLE', 'purpose'],
    [`purpose=${'a'.repeat(5000)}`, 'purpose'],
    ['purpose=stolen_vehicle&purpose=missing_person', 'purpose'],
    ['purpose=criminal_investigation&case_number=CR%001', 'case_number'],
    ['purpose=criminal_investigation&case_number=%ED%A0%80', 'case_number'],
    ['purpose=criminal_investigation&case_number=%20%20', 'case_number'],
    [`purpose=criminal_investigation&case_number=${'9'.repeat(65)}`, 'case_number'],
    [`purpose=criminal_investigation&case_number=${'9'.repeat(100_000)}`, 'case_number'],
    ['purpose=criminal_investigation&case_number=%3Cscript%3E', 'case_number'],
    ['purpose=stolen_vehicle&reason=a%00b', 'reason'],
  ] as const) {
    const res = await search(query);
    t.ok(res.status >= 400 && res.status < 500, `${query.slice(0, 60)}: ${res.status}`);
    if (res.status === 400) t.match(await res.json(), { error: { code: 'bad_request', message: new RegExp(`^${field}: `) } }, `names ${field}`);
  }
  const after = (await ctx.database.sql<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'search.detections'`))[0]?.n;
  t.equal(after, before, 'a refused lookup ran no search');
  for (const path of [
    `${investigationPath('plate-history')}?plate=AB1`,
    detectionPath('1'),
    `${PLATE_AUTOCOMPLETE_PATH}?q=AB`,
    `${EXPORT_DETECTIONS_PATH}?plate=AB1`,
  ]) {
    const sep = path.includes('?') ? '&' : '?';
    t.equal((await send(ctx, viewer, 'GET', `${path}${sep}reason=case%201`)).status, 400, `${path}: no purpose`);
    t.equal((await send(ctx, viewer, 'GET', `${path}${sep}purpose=nope_nope`)).status, 400, `${path}: unknown purpose`);
  }
});

t.test('admins create, retire and reactivate purposes, audited; a retired purpose is refused; none is deleted', async (t) => {
  const created = await send(ctx, admin, 'POST', ADMIN_PURPOSES_PATH, { code: 'hit_and_run', label: 'Hit and run', case_number_required: true });
  t.equal(created.status, 201);
  t.match(await created.json(), { code: 'hit_and_run', label: 'Hit and run', case_number_required: true, active: true, description: '' });
  t.ok((await activeCodes()).includes('hit_and_run'), 'listed for users');
  t.equal((await search('purpose=hit_and_run&case_number=HR-1')).status, 200);
  t.equal((await send(ctx, admin, 'POST', ADMIN_PURPOSES_PATH, { code: 'hit_and_run', label: 'Again' })).status, 409, 'a code once');
  t.equal((await send(ctx, viewer, 'POST', ADMIN_PURPOSES_PATH, { code: 'by_viewer', label: 'No' })).status, 403);
  for (const body of [
    { code: 'Bad Code', label: 'x' },
    { code: 'x', label: 'too short a code' },
    { code: 'nul_label', label: 'a\u0000b' },
    { code: 'surrogate', label: 'a\ud800b' },
    { code: 'huge_label', label: 'L'.repeat(101) },
    { code: 'huge_desc', label: 'ok', description: 'D'.repeat(501) },
    { code: 'no_label' },
    { code: 'extra', label: 'ok', colour: 'red' },
    { code: 'typed', label: 'ok', case_number_required: 'yes' },
  ])
    t.equal((await send(ctx, admin, 'POST', ADMIN_PURPOSES_PATH, body)).status, 400, JSON.stringify(body).slice(0, 60));

  const retired = await send(ctx, admin, 'POST', adminPurposeActionPath('hit_and_run', 'retire'));
  t.equal(retired.status, 200);
  t.match(await retired.json(), { code: 'hit_and_run', active: false, retired_at: ctx.clock.now().toISOString() });
  t.notOk((await activeCodes()).includes('hit_and_run'), 'gone from the users list');
  const refused = await search('purpose=hit_and_run&case_number=HR-2');
  t.equal(refused.status, 400);
  t.match(await refused.json(), { error: { message: /^purpose: hit_and_run is retired/ } });
  t.equal((await send(ctx, admin, 'POST', adminPurposeActionPath('hit_and_run', 'retire'))).status, 409, 'retired already');
  t.equal((await send(ctx, admin, 'POST', adminPurposeActionPath('never_made', 'retire'))).status, 404);
  // api-path-literal: an escaped NUL in the code segment, which the builder would encode away
  t.equal((await send(ctx, admin, 'POST', '/api/v1/admin/purposes/NOT%00A%20CODE/retire')).status, 400);
  t.equal((await send(ctx, viewer, 'POST', adminPurposeActionPath('stolen_vehicle', 'retire'))).status, 403);
  t.equal((await send(ctx, admin, 'POST', ADMIN_PURPOSES_PATH, { code: 'hit_and_run', label: 'Reused' })).status, 409, 'a retired code is not reused');
  const all = await json<{ data: Purpose[] }>(await send(ctx, admin, 'GET', ADMIN_PURPOSES_PATH));
  t.match(
    all.data.find((p) => p.code === 'hit_and_run'),
    { active: false },
    'admins still see it',
  );
  t.equal((await send(ctx, viewer, 'GET', ADMIN_PURPOSES_PATH)).status, 403);
  t.equal((await send(ctx, admin, 'POST', adminPurposeActionPath('hit_and_run', 'reactivate'))).status, 200);
  t.equal((await search('purpose=hit_and_run&case_number=HR-3')).status, 200, 'active again');

  t.match(await auditRows(ctx, 'admin.purpose.create', 'hit_and_run'), [
    { actorUserId: admin.user.user.id, targetType: 'purpose', detail: { outcome: 'succeeded', label: 'Hit and run', case_number_required: true } },
  ]);
  const failed = await ctx.database.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM audit_log WHERE action = 'admin.purpose.create' AND detail->>'outcome' = 'failed'`,
  );
  t.ok(Number(failed[0]?.n) >= 1, 'refused creations are audited too');
  t.match(await auditRows(ctx, 'admin.purpose.retire', 'hit_and_run'), [{ detail: { outcome: 'succeeded' } }, { detail: { outcome: 'failed', status: 409 } }]);
  t.equal((await auditRows(ctx, 'admin.purpose.reactivate', 'hit_and_run')).length, 1);
  await t.rejects(ctx.database.sql(`DELETE FROM purposes WHERE code = 'hit_and_run'`), /retired, never deleted/, 'the table refuses deletes');
});

t.test('the audit list filters lookups by purpose and case number', async (t) => {
  await search('purpose=missing_person&reason=silver%20alert');
  await search('purpose=wanted_person&case_number=W-77');
  const byPurpose = await json<{ data: Array<{ action: string; detail: Record<string, unknown> }> }>(
    await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?purpose=missing_person`),
  );
  t.match(byPurpose.data, [{ action: 'search.detections', detail: { purpose: 'missing_person', reason: 'silver alert', case_number: null } }]);
  t.equal(byPurpose.data.length, 1);
  const byCase = await json<{ data: Array<{ detail: Record<string, unknown> }> }>(await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?case_number=W-77`));
  t.match(byCase.data, [{ detail: { purpose: 'wanted_person', case_number: 'W-77' } }]);
  for (const bad of ['purpose=%00', 'purpose=Not%20a%20code', `case_number=${'x'.repeat(65)}`, 'case_number=%ED%A0%80'])
    t.equal((await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?${bad}`)).status, 400, bad);
});
