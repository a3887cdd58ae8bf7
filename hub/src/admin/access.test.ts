import t from 'tap';
import { and, eq, like } from 'drizzle-orm';
import { authenticateCollector } from '../collectors/api-key-auth.ts';
import { listKeys } from '../collectors/list-keys.ts';
import { collectorStatus } from '../collectors/status.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { auditLog } from '../db/schema/audit-log.ts';
import { adminTestContext, reverify, send, type Session } from './admin.test-helper.ts';
import {
  ADMIN_COLLECTORS_PATH,
  adminCollectorPartPath,
  adminCollectorPath,
  adminKeyActionPath,
  adminKeyPath,
  collectorRotateKeyPath,
} from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const { deps, clock } = ctx;

interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** Needs a second factor proven within 5 minutes. */
  fresh: boolean;
}

function routes(collectorId: string, keyId: string): Route[] {
  const c = adminCollectorPath(collectorId);
  return [
    { method: 'POST', path: ADMIN_COLLECTORS_PATH, body: { site_name: 'Denied' }, fresh: false },
    { method: 'GET', path: ADMIN_COLLECTORS_PATH, fresh: false },
    { method: 'GET', path: c, fresh: false },
    { method: 'POST', path: `${c}/provisioning-tokens`, fresh: false },
    { method: 'GET', path: `${c}/keys`, fresh: false },
    { method: 'POST', path: `${c}/config`, body: { config: { a: 1 } }, fresh: false },
    { method: 'POST', path: collectorRotateKeyPath(collectorId), body: { grace_period_hours: 1 }, fresh: true },
    { method: 'POST', path: `${c}/rotate-key`, body: {}, fresh: true },
    { method: 'POST', path: adminKeyActionPath(keyId, 'revoke'), body: { reason: 'test' }, fresh: true },
    { method: 'DELETE', path: adminKeyPath(keyId), fresh: true },
    { method: 'POST', path: `${c}/wipe`, fresh: true },
    { method: 'POST', path: `${c}/decommission`, body: { reason: 'test' }, fresh: true },
  ];
}

async function firstKeyId(collectorId: string): Promise<string> {
  const [key] = await listKeys(deps, collectorId);
  if (!key) throw new Error('no key');
  return key.id;
}

t.test('operator and viewer get 403, no cookie 401, on every route; nothing changes', async (t) => {
  const c = await claimedCollector(deps);
  const all = routes(c.collectorId, await firstKeyId(c.collectorId));
  for (const role of ['operator', 'viewer'] as const) {
    const s = await ctx.session(role);
    for (const r of all) {
      const res = await send(ctx, s, r.method, r.path, r.body);
      t.equal(res.status, 403, `${role}: ${r.method} ${r.path}`);
      t.same(await res.json(), { detail: 'Insufficient permissions' });
    }
    const written = await ctx.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, s.user.user.id), like(auditLog.action, 'admin.%')));
    t.equal(written.length, 0, `${role}: no verb ran, so no admin audit row`);
  }
  for (const r of all) {
    const res = await send(ctx, null, r.method, r.path, r.body);
    t.equal(res.status, 401, `anonymous: ${r.method} ${r.path}`);
    t.same(await res.json(), { detail: 'Not authenticated' });
  }
  t.equal((await collectorStatus(deps, c.collectorId)).status, 'active');
  t.equal((await listKeys(deps, c.collectorId)).length, 1);
  t.ok(await authenticateCollector(deps, c.apiKey, null), 'its key still works');
});

t.test('key operations need a second factor at most 5 minutes old; reverify unlocks them', async (t) => {
  const admin = await ctx.session('admin');
  const c = await claimedCollector(deps);
  const keyId = await firstKeyId(c.collectorId);
  const all = routes(c.collectorId, keyId);
  clock.advance(301_000);
  for (const r of all.filter((x) => x.fresh)) {
    const res = await send(ctx, admin, r.method, r.path, r.body);
    t.equal(res.status, 403, `stale: ${r.method} ${r.path}`);
    t.equal(res.headers.get('x-2fa-fresh-required'), 'true');
    t.same(await res.json(), { detail: 'Recent 2FA verification required' });
  }
  t.equal((await listKeys(deps, c.collectorId)).length, 1, 'no key was rotated');
  t.ok(await authenticateCollector(deps, c.apiKey, null), 'no key was revoked');
  for (const r of all.filter((x) => !x.fresh && x.method === 'GET')) {
    t.equal((await send(ctx, admin, r.method, r.path)).status, 200, `stale is fine for ${r.path}`);
  }
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'config'), { config: {} })).status, 200, 'and for config');

  await reverify(ctx, admin);
  const rotated = await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), { grace_period_hours: 1 });
  t.equal(rotated.status, 200, 'rotate after reverify');
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'rotate-key'), {})).status, 200, 'alias too');
  const keys = await listKeys(deps, c.collectorId);
  t.equal(keys.length, 3);
  t.equal((await send(ctx, admin, 'POST', adminKeyActionPath(keyId, 'revoke'), { reason: 'test' })).status, 200, 'revoke');
  t.equal((await send(ctx, admin, 'DELETE', adminKeyPath(keys[1]?.id ?? ''))).status, 200, 'delete');
  t.equal((await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'wipe'))).status, 202, 'wipe');
  const done = await send(ctx, admin, 'POST', adminCollectorPartPath(c.collectorId, 'decommission'), { reason: 'test' });
  t.equal(done.status, 200, 'decommission');
  t.match(await done.json(), { revoked_keys: 1 }, 'the one key left');
});

async function postConfig(s: Session, collectorId: string) {
  return send(ctx, s, 'POST', adminCollectorPartPath(collectorId, 'config'), { config: {} });
}

t.test('POST /api/v1/admin/*: 30 a minute per user, shared with the spec rotate path', async (t) => {
  const admin = await ctx.session('admin');
  const other = await ctx.session('admin');
  const pending = (await (await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Busy' })).json()) as { collector_id: string };
  const statuses: number[] = [];
  for (let i = 0; i < 29; i++) statuses.push((await postConfig(admin, pending.collector_id)).status);
  t.same(new Set(statuses), new Set([200]), '30 posts (create + 29 config) pass');
  const refused = await postConfig(admin, pending.collector_id);
  t.equal(refused.status, 429);
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
  t.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  t.match(await refused.json(), { detail: 'Rate limit exceeded' });
  t.equal((await collectorStatus(deps, pending.collector_id)).configVersion, 30, 'the refused post changed nothing');
  const c = await claimedCollector(deps);
  t.equal((await send(ctx, admin, 'POST', collectorRotateKeyPath(c.collectorId), {})).status, 429, 'spec rotate path shares the limit');
  t.equal((await send(ctx, admin, 'GET', ADMIN_COLLECTORS_PATH)).status, 200, 'reads are not limited');
  t.equal((await postConfig(other, pending.collector_id)).status, 200, 'another admin has their own allowance');
  clock.advance(60_000);
  t.equal((await postConfig(admin, pending.collector_id)).status, 200, 'a minute later it is back');
});

t.test('DELETE /api/v1/*: 10 a minute per user', async (t) => {
  const admin = await ctx.session('admin');
  const unknown = adminKeyPath('00000000-0000-4000-8000-000000000009');
  for (let i = 0; i < 10; i++) t.equal((await send(ctx, admin, 'DELETE', unknown)).status, 404, `delete ${i + 1}`);
  const refused = await send(ctx, admin, 'DELETE', unknown);
  t.equal(refused.status, 429);
  t.equal(refused.headers.get('x-ratelimit-limit'), '10');
  t.equal((await send(ctx, admin, 'POST', ADMIN_COLLECTORS_PATH, { site_name: 'Still fine' })).status, 201, 'the POST allowance is separate');
});
