import { ADMIN_COLLECTORS_PATH, adminCollectorPartPath, adminCollectorPath } from '../platform/http/paths.ts';
import { CLAIM_PATH, HEARTBEAT_PATH, PROVISION_PATHS } from '@alpr/shared/protocol/paths';
import t from 'tap';
import { eq } from 'drizzle-orm';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { authenticateCollector } from '../collectors/api-key-auth.ts';
import { commands } from '../db/schema/commands.ts';
import { collectors } from '../db/schema/collectors.ts';
import { ADMIN_IP, adminTestContext, auditRows, reverify, send } from './admin.test-helper.ts';

const ctx = await adminTestContext(t);
const { deps, clock } = ctx;
const admin = await ctx.session('admin');

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

t.test('create a collector: 201 with a claim code valid 48 h, audited with who and where', async (t) => {
  const res = await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, {
    site_name: ' North gate ',
    site_address: '1 Main St',
    gps_latitude: 51.5,
    gps_longitude: -0.12,
    config: { heartbeat_interval_seconds: 30 },
  });
  t.equal(res.status, 201);
  t.equal(res.headers.get('x-ratelimit-limit'), '30', 'admin POSTs carry the rate-limit headers');
  const body = await json(res);
  t.match(body.claim_code, /^ALPR-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  t.equal(body.status, 'pending');
  t.equal(body.claim_code_expires_at, new Date(clock.now().getTime() + 48 * 3600_000).toISOString());
  const id = String(body.collector_id);
  const [row] = await ctx.database.db.select().from(collectors).where(eq(collectors.id, id));
  t.equal(row?.siteName, 'North gate', 'trimmed');
  t.equal(row?.siteAddress, '1 Main St');
  t.equal(Number(row?.gpsLatitude), 51.5);
  t.equal(Number(row?.gpsLongitude), -0.12);
  t.equal(row?.createdBy, admin.user.user.id, 'created_by is the admin');
  t.same(row?.config, { heartbeat_interval_seconds: 30 });

  const [audit] = await auditRows(ctx, 'admin.collector.create', id);
  t.equal(audit?.actorUserId, admin.user.user.id);
  t.equal(audit?.targetType, 'collector');
  t.equal(audit?.ip, ADMIN_IP);
  t.equal(audit?.userAgent, 'tap-test/1.0');
  t.equal(audit?.at.toISOString(), clock.now().toISOString());
  t.match(audit?.detail, { outcome: 'succeeded', status: 201, method: 'POST', path: ADMIN_COLLECTORS_PATH });
  t.notMatch(JSON.stringify(audit?.detail), String(body.claim_code), 'no claim code in the audit row');
  const [verbRow] = await auditRows(ctx, 'collector.created', id);
  t.equal(verbRow?.actorUserId, admin.user.user.id, "the verb's own row names the admin too");

  // The claim code works for a device.
  const claim = await send(ctx, null, 'POST', CLAIM_PATH, { claim_code: body.claim_code, hardware_id: 'HW-admin-create' });
  t.equal(claim.status, 200);
});

t.test('create: invalid bodies are 400 with the error body', async (t) => {
  const bad: [string, unknown][] = [
    ['missing site_name', { site_address: 'x' }],
    ['blank site_name', { site_name: '   ' }],
    ['latitude out of range', { site_name: 'A', gps_latitude: 91, gps_longitude: 0 }],
    ['latitude without longitude', { site_name: 'A', gps_latitude: 10 }],
    ['unknown field', { site_name: 'A', lat: 10 }],
    ['config not an object', { site_name: 'A', config: [1, 2] }],
    ['not JSON', '{"site_name":'],
    ['not an object', '[1]'],
  ];
  for (const [what, body] of bad) {
    const res = await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, body);
    t.equal(res.status, 400, what);
    const b = await json(res);
    t.match(b, { error: { code: 'bad_request', message: String } }, what);
  }
  const text = await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, 'site_name=A', { 'content-type': 'text/plain' });
  t.equal(text.status, 403, 'text/plain refused (a simple content type: the CSRF check comes first)');
  const form = await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, 'site_name=A', { 'content-type': 'application/x-www-form-urlencoded' });
  t.equal(form.status, 403, 'a form post without the CSRF token is refused');
  t.same(await form.json(), { detail: 'CSRF token missing or invalid' });
});

t.test('list and read collectors with online/offline state', async (t) => {
  const online = await claimedCollector(deps);
  const beat = await send(
    ctx,
    null,
    'POST',
    HEARTBEAT_PATH,
    { uptime_seconds: 5, queue_depth: 0, cameras_online: 1, config_version: 1 },
    { 'x-api-key': online.apiKey },
  );
  t.equal(beat.status, 200);
  const silent = await claimedCollector(deps);
  const pending = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Waiting' }));

  const list = await send(ctx, admin, 'GET', ADMIN_COLLECTORS_PATH);
  t.equal(list.status, 200);
  const data = (await json(list)).data as Record<string, unknown>[];
  const byId = new Map(data.map((c) => [c.id, c]));
  t.match(byId.get(online.collectorId), { status: 'active', connectivity: 'online', config_version: 1 });
  t.match(byId.get(silent.collectorId), { status: 'active', connectivity: 'offline', last_heartbeat_at: null });
  t.match(byId.get(pending.collector_id), { status: 'pending', connectivity: 'offline', site_name: 'Waiting' }, 'pending ones too');

  const one = await send(ctx, admin, 'GET', adminCollectorPath(online.collectorId));
  t.equal(one.status, 200);
  t.match(await json(one), {
    id: online.collectorId,
    connectivity: 'online',
    heartbeats_arriving: true,
    hardware_id: online.hardwareId,
    last_heartbeat: { uptime_seconds: 5 },
  });
  t.match(byId.get(silent.collectorId), { heartbeats_arriving: false }, 'never heard');

  // Suspended, its box still heard: offline for uploads, and its heartbeats said apart.
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(online.collectorId, 'suspend'), {})).status, 200);
  t.match(await json(await send(ctx, admin, 'GET', adminCollectorPath(online.collectorId))), {
    status: 'disabled',
    connectivity: 'offline',
    heartbeats_arriving: true,
  });
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(online.collectorId, 'resume'))).status, 200);

  // 181 s later (3 missed 60 s heartbeats) the same collector reads as offline.
  clock.advance(181_000);
  t.match(await json(await send(ctx, admin, 'GET', adminCollectorPath(online.collectorId))), { connectivity: 'offline', heartbeats_arriving: false });

  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const missing = await send(ctx, admin, 'GET', adminCollectorPath(id));
    t.equal(missing.status, 404, id);
    t.match(await json(missing), { error: { code: 'not_found' } });
  }
  const [failed] = await auditRows(ctx, 'admin.collector.read', 'not-a-uuid');
  t.match(failed?.detail, { outcome: 'failed', status: 404, error_code: 'not_found' }, 'refusals are audited too');
  const [read] = await auditRows(ctx, 'admin.collector.read', online.collectorId);
  t.equal(read?.actorUserId, admin.user.user.id);
});

t.test('provisioning token: shown once, works at the provision endpoint', async (t) => {
  const created = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Depot' }));
  const id = String(created.collector_id);
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(id, 'provisioning-tokens'));
  t.equal(res.status, 201, 'no body needed');
  const body = await json(res);
  t.match(body.provisioning_token, /^prov_/);
  t.equal(body.expires_at, new Date(clock.now().getTime() + 3600_000).toISOString());
  const [audit] = await auditRows(ctx, 'admin.collector.provisioning_token', id);
  t.match(audit?.detail, { token_id: body.token_id, outcome: 'succeeded' });
  t.notMatch(JSON.stringify(audit?.detail), String(body.provisioning_token), 'token not audited');

  const provisioned = await send(ctx, null, 'POST', PROVISION_PATHS[1], { provisioning_token: body.provisioning_token, hardware_id: 'HW-prov-admin' });
  t.equal(provisioned.status, 200);
  t.equal((await json(provisioned)).collector_id, id);

  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(id, 'provisioning-tokens'), { extra: 1 })).status, 400, 'stray field');
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath('00000000-0000-4000-8000-000000000001', 'provisioning-tokens'))).status, 404);
});

t.test('config: new config_version, queued for an active collector', async (t) => {
  const active = await claimedCollector(deps);
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(active.collectorId, 'config'), { config: { heartbeat_interval_seconds: 30 } });
  t.equal(res.status, 200);
  const body = await json(res);
  t.equal(body.config_version, 2);
  const [command] = await ctx.database.db
    .select()
    .from(commands)
    .where(eq(commands.id, String(body.command_id)));
  t.equal(command?.type, 'config_update');
  t.same(command?.payload, { config: { heartbeat_interval_seconds: 30 }, config_version: 2 });
  const again = await json(await send(ctx, admin, 'POST', adminCollectorPartPath(active.collectorId, 'config'), { config: {} }));
  t.equal(again.config_version, 3);

  const pending = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Later' }));
  const toPending = await json(await send(ctx, admin, 'POST', adminCollectorPartPath(String(pending.collector_id), 'config'), { config: { a: 1 } }));
  t.match(toPending, { config_version: 2, command_id: null }, 'a pending collector gets it at claim');

  for (const body of [{}, { config: [1] }, { config: 'x' }, { config: {}, more: 1 }]) {
    t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(active.collectorId, 'config'), body)).status, 400, JSON.stringify(body));
  }
  const [audit] = await auditRows(ctx, 'admin.collector.config', active.collectorId);
  t.match(audit?.detail, { config_version: 2, outcome: 'succeeded' });
});

t.test('decommission revokes the keys; a second time is 409', async (t) => {
  await reverify(ctx, admin); // earlier tests moved the clock; key operations need a fresh second factor
  const c = await claimedCollector(deps);
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'decommission'), { reason: 'site closed' });
  t.equal(res.status, 200);
  t.same(await json(res), { collector_id: c.collectorId, status: 'decommissioned', revoked_keys: 1 });
  await t.rejects(authenticateCollector(deps, c.apiKey, null), { code: 'unauthorized' }, 'its key stops working');
  const again = await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'decommission'));
  t.equal(again.status, 409);
  t.match(await json(again), { error: { code: 'conflict' } });
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'provisioning-tokens'))).status, 409, 'no tokens for it any more');
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'decommission'), { reason: '' })).status, 400);
  const rows = await auditRows(ctx, 'admin.collector.decommission', c.collectorId);
  t.match(
    rows.map((r) => r.detail),
    [
      { outcome: 'succeeded', revoked_keys: 1 },
      { outcome: 'failed', status: 409, error_code: 'conflict' },
    ],
  );
});

t.test('wipe: 202 with a queued signed command; only for an active collector', async (t) => {
  await reverify(ctx, admin);
  const c = await claimedCollector(deps);
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'wipe'));
  t.equal(res.status, 202);
  const body = await json(res);
  const [command] = await ctx.database.db
    .select()
    .from(commands)
    .where(eq(commands.id, String(body.command_id)));
  t.equal(command?.type, 'wipe');
  t.equal(command?.createdBy, admin.user.user.id);
  const pending = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Never claimed' }));
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(String(pending.collector_id), 'wipe'))).status, 409);
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath('00000000-0000-4000-8000-000000000002', 'wipe'))).status, 404);
  const [audit] = await auditRows(ctx, 'admin.collector.wipe', c.collectorId);
  t.match(audit, { actorUserId: admin.user.user.id, ip: ADMIN_IP, detail: { command_id: body.command_id } });
});
