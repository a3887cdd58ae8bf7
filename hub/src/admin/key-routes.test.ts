import t from 'tap';
import { authenticateCollector } from '../collectors/api-key-auth.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { ADMIN_IP, adminTestContext, auditRows, reverify, send } from './admin.test-helper.ts';
import { DEFAULT_DELETE_REASON } from './schema.ts';
import { ADMIN_COLLECTORS_PATH, adminCollectorPartPath, adminKeyActionPath, adminKeyPath, collectorRotateKeyPath } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const { deps, clock } = ctx;
const admin = await ctx.session('admin');

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const keysOf = async (collectorId: string) =>
  (await json(await send(ctx, admin, 'GET', adminCollectorPartPath(collectorId, 'keys')))).data as Record<string, unknown>[];

t.beforeEach(() => reverify(ctx, admin));

t.test('rotate-key (spec path): new key once, both keys work until the grace ends', async (t) => {
  const c = await claimedCollector(deps);
  const res = await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), { grace_period_hours: 2 });
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'no-store');
  const body = await json(res);
  t.same(Object.keys(body).sort(), ['command_id', 'delivery', 'message', 'new_key', 'new_key_id', 'new_key_prefix', 'old_key_expires_at']);
  t.match(body.new_key, /^alpr_[A-Za-z0-9_-]{43}$/);
  t.equal(body.old_key_expires_at, new Date(clock.now().getTime() + 2 * 3600_000).toISOString());
  t.match(body.message, String(body.old_key_expires_at));
  t.match(body, { delivery: 'manual', command_id: null }, 'claimed without a device key: the admin installs it');
  const newKey = String(body.new_key);

  t.equal((await authenticateCollector(deps, newKey, null)).collectorId, c.collectorId, 'new key works');
  t.equal((await authenticateCollector(deps, c.apiKey, null)).collectorId, c.collectorId, 'old key still works');

  // Both keys were made at the same (test) instant: find them by prefix, not by position.
  const keys = await keysOf(c.collectorId);
  const byPrefix = (prefix: string) => keys.find((k) => k.prefix === prefix);
  t.equal(keys.length, 2);
  t.match(byPrefix(c.apiKey.slice(0, 10)), { status: 'active', expires_at: body.old_key_expires_at });
  t.match(byPrefix(String(body.new_key_prefix)), { id: body.new_key_id, status: 'active', expires_at: null, last_used_at: clock.now().toISOString() });
  t.notOk(JSON.stringify(keys).includes(newKey), 'the list never holds a key');

  const [audit] = await auditRows(ctx, 'admin.collector.rotate_key', c.collectorId);
  t.match(audit, {
    actorUserId: admin.user.user.id,
    ip: ADMIN_IP,
    detail: { outcome: 'succeeded', new_key_prefix: body.new_key_prefix, grace_period_hours: 2 },
  });
  t.notOk(JSON.stringify(audit).includes(newKey), 'no key in the audit row');

  clock.advance(2 * 3600_000);
  await t.rejects(authenticateCollector(deps, c.apiKey, null), { code: 'unauthorized' }, 'old key refused after the grace');
  t.ok(await authenticateCollector(deps, newKey, null), 'new key still works');
  const after = await keysOf(c.collectorId);
  t.match(
    after.find((k) => k.prefix === c.apiKey.slice(0, 10)),
    { status: 'expired' },
  );
  t.match(
    after.find((k) => k.id === body.new_key_id),
    { status: 'active' },
  );
});

t.test('rotate-key (admin alias): default grace 24 h; errors', async (t) => {
  const c = await claimedCollector(deps);
  const res = await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'rotate-key'));
  t.equal(res.status, 200, 'no body: defaults');
  t.equal((await json(res)).old_key_expires_at, new Date(clock.now().getTime() + 24 * 3600_000).toISOString());

  for (const body of [
    { grace_period_hours: 169 },
    { grace_period_hours: -1 },
    { grace_period_hours: 1.5 },
    { grace_period_hours: '24' },
    { grace_hours: 24 },
  ]) {
    const bad = await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.match(await json(bad), { error: { code: 'bad_request', message: /grace/ } });
  }
  t.equal((await keysOf(c.collectorId)).length, 2, 'refused rotations made no key');

  const missing = await send(ctx, admin, 'POST', collectorRotateKeyPath('00000000-0000-4000-8000-000000000003'), {});
  t.equal(missing.status, 404);
  const pending = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Unclaimed' }));
  const conflict = await send(ctx, admin, 'POST', collectorRotateKeyPath(String(pending.collector_id)), {});
  t.equal(conflict.status, 409, 'a pending collector has no key to rotate');
  t.match(await json(conflict), { error: { code: 'conflict' } });
});

t.test('revoke: immediate; twice is 409; unknown key 404', async (t) => {
  const c = await claimedCollector(deps);
  const [key] = await keysOf(c.collectorId);
  const keyId = String(key?.id);
  t.equal((await send(ctx, admin, 'POST', adminKeyActionPath(keyId, 'revoke'), {})).status, 400, 'reason required');
  t.equal((await send(ctx, admin, 'POST', adminKeyActionPath(keyId, 'revoke'), { reason: '  ' })).status, 400, 'blank reason');
  const res = await send(ctx, admin, 'POST', adminKeyActionPath(keyId, 'revoke'), { reason: 'laptop stolen' });
  t.equal(res.status, 200);
  t.same(await json(res), {
    key_id: keyId,
    key_prefix: c.apiKey.slice(0, 10),
    collector_id: c.collectorId,
    status: 'revoked',
    revoked_at: clock.now().toISOString(),
  });
  await t.rejects(authenticateCollector(deps, c.apiKey, null), { code: 'unauthorized' }, 'the key stops working now');
  t.match((await keysOf(c.collectorId))[0], { status: 'revoked', revoke_reason: 'laptop stolen' });

  const again = await send(ctx, admin, 'POST', adminKeyActionPath(keyId, 'revoke'), { reason: 'again' });
  t.equal(again.status, 409);
  t.equal((await send(ctx, admin, 'POST', adminKeyActionPath('00000000-0000-4000-8000-000000000004', 'revoke'), { reason: 'x' })).status, 404);
  t.equal((await send(ctx, admin, 'POST', adminKeyActionPath('nonsense', 'revoke'), { reason: 'x' })).status, 404);

  const rows = await auditRows(ctx, 'admin.key.revoke', keyId);
  const outcomes = rows.map((r) => [r.detail['outcome'], r.detail['status']]);
  t.same(outcomes, [
    ['failed', 400],
    ['failed', 400],
    ['succeeded', 200],
    ['failed', 409],
  ]);
  t.match(rows[2], { actorUserId: admin.user.user.id, targetType: 'api_key', ip: ADMIN_IP, detail: { reason: 'laptop stolen' } });
});

t.test('DELETE /api/v1/admin/keys/{id}: the same revocation, reason optional', async (t) => {
  const c = await claimedCollector(deps);
  const [key] = await keysOf(c.collectorId);
  const res = await send(ctx, admin, 'DELETE', adminKeyPath(String(key?.id)));
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-ratelimit-limit'), '10', 'the DELETE limit applies');
  t.match(await json(res), { status: 'revoked' });
  t.match((await keysOf(c.collectorId))[0], { status: 'revoked', revoke_reason: DEFAULT_DELETE_REASON });
  await t.rejects(authenticateCollector(deps, c.apiKey, null));
  t.equal((await send(ctx, admin, 'DELETE', adminKeyPath(String(key?.id)))).status, 409);

  const other = await claimedCollector(deps);
  const [otherKey] = await keysOf(other.collectorId);
  t.equal((await send(ctx, admin, 'DELETE', adminKeyPath(String(otherKey?.id)), { reason: 'moved' })).status, 200);
  t.match((await keysOf(other.collectorId))[0], { revoke_reason: 'moved' });
});

t.test('keys list: 404 for an unknown collector id, empty for a pending one', async (t) => {
  t.equal((await send(ctx, admin, 'GET', adminCollectorPartPath('nonsense', 'keys'))).status, 404);
  t.equal((await send(ctx, admin, 'GET', adminCollectorPartPath('00000000-0000-4000-8000-000000000005', 'keys'))).status, 404);
  const pending = await json(await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'No keys' }));
  const res = await send(ctx, admin, 'GET', adminCollectorPartPath(String(pending.collector_id), 'keys'));
  t.same(await json(res), { data: [] });
});
