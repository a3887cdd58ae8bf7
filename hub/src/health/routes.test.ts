/**
 * GET /api/v1/admin/health-alerts (docs/admin-api.md "Health alerts"): the wire shape the
 * dashboard reads, filters and paging, hostile queries, and admins only.
 */
import t from 'tap';
import { HEALTH_HEARERS } from '../hearers.ts';
import { adminTestContext, send } from '../admin/admin.test-helper.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { ADMIN_HEALTH_ALERTS_PATH } from '../platform/http/paths.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { evaluateHealth } from './evaluate.ts';
import type { HealthAlertPage, HealthAlertRecord } from './present.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
const operator = await ctx.session('operator');
const viewer = await ctx.session('viewer');
const health = { db: ctx.deps.db, clock: ctx.clock, log: ctx.deps.log, config: ctx.deps.config, hearers: HEALTH_HEARERS };

// Two sites reporting an offline camera (two camera_offline), then silent for 10 minutes (two
// collector_silent); then North beats again with its camera back: North's two close.
const sites: string[] = [];
for (const name of ['North gate', 'South gate']) {
  const { collectorId } = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: name });
  await ctx.deps.db.sql(`UPDATE collectors SET status = 'active', last_heartbeat_at = $2, last_heartbeat = $3::jsonb WHERE id = $1`, [
    collectorId,
    ctx.clock.now().toISOString(),
    JSON.stringify({ cameras: [{ id: 'cam-1', name: 'Gate west', state: 'OFFLINE', last_success_at: null }] }),
  ]);
  sites.push(collectorId);
}
const [north, south] = sites as [string, string];
await evaluateHealth(health);
ctx.clock.advance(10 * 60_000);
await evaluateHealth(health);
await ctx.deps.db.sql(`UPDATE collectors SET last_heartbeat_at = $2, last_heartbeat = $3::jsonb WHERE id = $1`, [
  north,
  ctx.clock.now().toISOString(),
  JSON.stringify({ cameras: [{ id: 'cam-1', state: 'ONLINE' }] }),
]);
await evaluateHealth(health);

const get = async (query: string, who = admin) => send(ctx, who, 'GET', `${ADMIN_HEALTH_ALERTS_PATH}${query}`);

t.test('the list: newest first, the record shape, state and collector filters, paging', async (t) => {
  const res = await get('?state=all');
  t.equal(res.status, 200);
  const page = (await res.json()) as HealthAlertPage;
  t.equal(page.items.length, 4, 'two offline cameras, two silent collectors');
  t.same(
    page.items.map((a) => Number(a.id)),
    page.items.map((a) => Number(a.id)).sort((a, b) => b - a),
    'newest first',
  );
  t.equal(page.next_before, null);
  const camera = page.items.find((a) => a.kind === 'camera_offline' && a.collector_id === north) as HealthAlertRecord;
  t.same(
    Object.keys(camera).sort(),
    ['camera_id', 'camera_name', 'closed_at', 'collector_id', 'collector_name', 'detail', 'id', 'kind', 'message', 'opened_at'].sort(),
  );
  t.match(camera, {
    collector_name: 'North gate',
    camera_id: 'cam-1',
    camera_name: 'Gate west',
    closed_at: String,
    message: /^Camera Gate west at North gate is offline/,
  });
  t.match(camera.opened_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const open = (await (await get('?state=open')).json()) as HealthAlertPage;
  t.ok(open.items.every((a) => a.closed_at === null));
  const closed = (await (await get('?state=closed')).json()) as HealthAlertPage;
  t.ok(closed.items.every((a) => a.closed_at !== null && a.collector_id === north));
  t.equal(open.items.length, 2);
  t.equal(closed.items.length, 2, "North's two");

  const southOnly = (await (await get(`?collector_id=${south}`)).json()) as HealthAlertPage;
  t.ok(southOnly.items.length > 0 && southOnly.items.every((a) => a.collector_id === south && a.collector_name === 'South gate'));

  const first = (await (await get('?limit=3')).json()) as HealthAlertPage;
  t.equal(first.items.length, 3);
  t.equal(first.next_before, first.items[2]?.id);
  const second = (await (await get(`?limit=3&before=${first.next_before}`)).json()) as HealthAlertPage;
  t.equal(second.items.length, 1);
  t.equal(second.next_before, null);
  t.same(
    [...first.items, ...second.items].map((a) => a.id),
    page.items.map((a) => a.id),
    'the pages add up to the whole',
  );
});

t.test('hostile or malformed queries get a 400', async (t) => {
  for (const bad of [
    'state=maybe',
    'limit=0',
    'limit=501',
    'limit=ten',
    'before=-1',
    'before=1;DROP',
    'before=99999999999999999999',
    'collector_id=not-a-uuid',
    'colour=red',
  ])
    t.equal((await get(`?${bad}`)).status, 400, bad);
  const res = await get(`?collector_id=00000000-0000-4000-8000-000000000000`);
  t.equal(res.status, 200, 'an unknown collector is an empty list');
  t.same(await res.json(), { items: [], next_before: null });
});

t.test('admins only', async (t) => {
  t.equal((await get('', operator)).status, 403);
  t.equal((await get('', viewer)).status, 403);
  t.equal((await send(ctx, null, 'GET', ADMIN_HEALTH_ALERTS_PATH)).status, 401);
});
