/**
 * Issue 52: the route table says, for every route the hub mounts, whether it is site-scoped or
 * reads no site data (site-scope-table.ts). A route that is not in the table fails here, so a
 * new route cannot land without saying which it is; a stale entry fails too.
 */
import t from 'tap';
import { adminTestContext } from '../../hub/src/admin/admin.test-helper.ts';
import { SITE_SCOPE_TABLE } from './site-scope-table.ts';
import { routesOf } from './sweep.ts';

const ctx = await adminTestContext(t);
const mounted = routesOf(ctx.app).map((r) => `${r.method} ${r.path}`);
const marked = new Map(SITE_SCOPE_TABLE);

t.test('every mounted route is marked site-scoped, admin-only or reading no site data', async (t) => {
  const unmarked = mounted.filter((r) => !marked.has(r));
  t.same(unmarked, [], 'routes that say neither: mark them in test/sweep/site-scope-table.ts');
  t.same(
    [...marked.keys()].filter((r) => !mounted.includes(r)),
    [],
    'no mark for a route that is gone',
  );
  t.equal(marked.size, SITE_SCOPE_TABLE.length, 'each route marked once');
});

t.test('the reads of detections are all scoped', async (t) => {
  for (const r of [
    'GET /api/v1/events/search',
    'GET /api/v1/detections/:id',
    'GET /api/v1/plates/autocomplete',
    'GET /api/v1/export/detections',
    'GET /api/v1/alerts',
  ])
    t.equal(marked.get(r), 'site_scoped', r);
  const debts = SITE_SCOPE_TABLE.filter(([, m]) => typeof m === 'object');
  t.comment(`not yet scoped: ${debts.map(([r]) => r).join(', ') || 'none'}`);
  for (const [r, m] of debts) t.ok(typeof m === 'object' && m.why.length > 10, `${r}: says why`);
});

t.test('an admin-only mark is true: an operator is refused there', async (t) => {
  // The mark stands in for a scope only because admins see every site: check the role guard.
  const operator = await ctx.session('operator');
  for (const [route, mark] of SITE_SCOPE_TABLE) {
    if (mark !== 'admin_only') continue;
    const [method, path] = route.split(' ') as [string, string];
    if (method !== 'GET' || path.includes(':')) continue;
    const res = await ctx.app.request(path, { headers: { cookie: operator.client.jar.header() } });
    t.ok(res.status === 403 || res.status === 302, `${route}: ${res.status}`);
  }
});
