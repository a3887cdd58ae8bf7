import t from 'tap';
import { adminTestContext, send } from './admin.test-helper.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const viewer = await ctx.session('viewer');

t.test('admins read the audit log, filtered and paged; others cannot', async (t) => {
  for (let i = 0; i < 3; i++) await send(ctx, viewer, 'GET', `/api/v1/events/search?plate=AB12CDE&purpose=stolen_vehicle&reason=case%20${i}`);
  const res = await send(ctx, admin, 'GET', `/api/v1/admin/audit?action=search.&actor_user_id=${viewer.user.user.id}&limit=2`);
  t.equal(res.status, 200);
  const page = (await res.json()) as { data: Array<{ action: string; detail: { reason: string } }>; next_before: string | null };
  t.same(
    page.data.map((r) => r.detail.reason),
    ['case 2', 'case 1'],
    'newest first',
  );
  t.ok(page.next_before);
  const next = (await (
    await send(ctx, admin, 'GET', `/api/v1/admin/audit?action=search.detections&actor_user_id=${viewer.user.user.id}&before=${page.next_before}`)
  ).json()) as { data: Array<{ detail: { reason: string } }> };
  t.same(
    next.data.map((r) => r.detail.reason),
    ['case 0'],
  );
  t.equal((await send(ctx, viewer, 'GET', '/api/v1/admin/audit')).status, 403);
  for (const bad of ['action=DROP%20TABLE', 'limit=0', 'since=yesterday', 'colour=red'])
    t.equal((await send(ctx, admin, 'GET', `/api/v1/admin/audit?${bad}`)).status, 400, bad);
  const reads = (await (await send(ctx, admin, 'GET', '/api/v1/admin/audit?action=admin.audit.read')).json()) as { data: unknown[] };
  t.ok(reads.data.length >= 2, 'reading the log is audited too');
});
