import t from 'tap';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { ADMIN_AUDIT_PATH, ADMIN_COLLECTORS_PATH, ADMIN_PURPOSES_PATH, ADMIN_USERS_PATH, EVENTS_SEARCH_PATH } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const viewer = await ctx.session('viewer');

t.test('admins read the audit log, filtered and paged; others cannot', async (t) => {
  for (let i = 0; i < 3; i++) await send(ctx, viewer, 'GET', `${EVENTS_SEARCH_PATH}?plate=AB12CDE&purpose=stolen_vehicle&reason=case%20${i}`);
  const res = await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?action=search.&actor_user_id=${viewer.user.user.id}&limit=2`);
  t.equal(res.status, 200);
  const page = (await res.json()) as { data: Array<{ action: string; detail: { reason: string } }>; next_before: string | null };
  t.same(
    page.data.map((r) => r.detail.reason),
    ['case 2', 'case 1'],
    'newest first',
  );
  t.ok(page.next_before);
  const next = (await (
    await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?action=search.detections&actor_user_id=${viewer.user.user.id}&before=${page.next_before}`)
  ).json()) as { data: Array<{ detail: { reason: string } }> };
  t.same(
    next.data.map((r) => r.detail.reason),
    ['case 0'],
  );
  t.equal((await send(ctx, viewer, 'GET', ADMIN_AUDIT_PATH)).status, 403);
  for (const bad of ['action=DROP%20TABLE', 'limit=0', 'since=yesterday', 'colour=red'])
    t.equal((await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?${bad}`)).status, 400, bad);
  const reads = (await (await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?action=admin.audit.read`)).json()) as { data: unknown[] };
  t.ok(reads.data.length >= 2, 'reading the log is audited too');
});

t.test('page views only on request; ids name exactly the rows of an audit-review flag', async (t) => {
  // Page views: the admin pages' reads. A lookup and a change beside them.
  await send(ctx, admin, 'GET', ADMIN_COLLECTORS_PATH);
  await send(ctx, admin, 'GET', ADMIN_USERS_PATH);
  await send(ctx, admin, 'GET', `${EVENTS_SEARCH_PATH}?plate=PV12EWS&purpose=stolen_vehicle`);
  await send(ctx, admin, 'POST', ADMIN_PURPOSES_PATH, { code: 'page_view_test', label: 'Page view test' });
  const actions = async (query: string): Promise<string[]> => {
    const res = await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?actor_user_id=${admin.user.user.id}&limit=500${query}`);
    t.equal(res.status, 200, query);
    return ((await res.json()) as { data: Array<{ action: string }> }).data.map((r) => r.action);
  };
  const every = await actions('');
  t.ok(every.includes('admin.collector.list') && every.includes('admin.user.list'), 'by default the API keeps every row');
  // Each read of the log is a row of its own: the second read sees the first.
  t.same(await actions('&page_views=include'), ['admin.audit.read', ...every], 'include is the default');
  const kept = await actions('&page_views=exclude');
  t.notOk(
    kept.some((a) => a === 'admin.collector.list' || a === 'admin.user.list' || a === 'admin.audit.read'),
    'exclude leaves out the reads of admin pages',
  );
  t.ok(kept.includes('search.detections') && kept.includes('admin.purpose.create'), 'and keeps the lookup and the change');

  const rows = (await (await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?actor_user_id=${admin.user.user.id}&limit=3`)).json()) as {
    data: Array<{ id: string }>;
  };
  const two = rows.data.slice(1).map((r) => r.id);
  const named = (await (await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?ids=${two.join(',')}`)).json()) as { data: Array<{ id: string }> };
  t.same(
    named.data.map((r) => r.id),
    two,
    'ids: those rows and no other',
  );
  for (const bad of ['ids=', 'ids=1,,2', 'ids=0', 'ids=x', `ids=${Array.from({ length: 201 }, (_, i) => i + 1).join(',')}`, 'page_views=only'])
    t.equal((await send(ctx, admin, 'GET', `${ADMIN_AUDIT_PATH}?${bad}`)).status, 400, bad.slice(0, 40));
});
