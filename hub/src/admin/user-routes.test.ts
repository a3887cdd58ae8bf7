/**
 * Issue 10 section 5 over real HTTP (in-process app, real database): logout ends the
 * session on the server, admins end all sessions of a user and manage users, a one-time
 * password must be changed first, every user changes their password with the current one
 * plus a fresh code.
 */
import t from 'tap';
import { totpCode } from '../auth/totp.ts';
import { client, signedIn, type Client } from '../auth/auth.test-helper.ts';
import { ADMIN_IP, adminTestContext, auditRows, reverify, send } from './admin.test-helper.ts';
import { ADMIN_USERS_PATH, ALERTS_PATH, adminUserActionPath, adminUserPath } from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const admin = await ctx.session('admin');
t.beforeEach(() => reverify(ctx, admin));
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

/** A second browser holding a copy of the same cookies (a stolen or shared cookie). */
function copyOf(c: Client): Client {
  const other = client(ctx.app, ADMIN_IP);
  for (const [k, v] of c.jar.values) other.jar.values.set(k, v);
  return other;
}

t.test('logout ends the session on the server: a copied cookie stops working; other sessions do not', async (t) => {
  const u = await ctx.session('operator');
  const stolen = copyOf(u.client);
  ctx.clock.advance(30_000);
  const otherDevice = await signedIn(ctx, u.user);
  t.equal((await stolen.get('/auth/me')).status, 200, 'the copy works before logout');
  t.equal((await u.client.post('/auth/logout', {})).status, 204);
  const after = await stolen.get('/auth/me');
  t.equal(after.status, 401);
  t.same(await json(after), { detail: 'Session ended' });
  t.equal((await otherDevice.get('/auth/me')).status, 200, 'a separate login is another session');
  const [row] = await auditRows(ctx, 'auth.logout', u.user.user.id);
  t.match(row, { detail: { scope: 'session' } });
});

t.test('admin ends every session of a user; the user can sign in again', async (t) => {
  const u = await ctx.session('viewer');
  const second = await signedIn(ctx, u.user);
  const res = await send(ctx, admin, 'POST', adminUserActionPath(u.user.user.id, 'end-sessions'));
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-ratelimit-limit'), '30', 'the admin POST limit applies');
  t.equal((await u.client.get('/auth/me')).status, 401);
  t.equal((await second.get('/auth/me')).status, 401);
  ctx.clock.advance(1000);
  const again = await signedIn(ctx, u.user);
  t.equal((await again.get('/auth/me')).status, 200, 'a new login after the cut works');
  t.match((await auditRows(ctx, 'admin.user.end_sessions', u.user.user.id))[0], { actorUserId: admin.user.user.id, detail: { outcome: 'succeeded' } });
});

t.test('admin creates a user with a one-time password that must be changed at first login', async (t) => {
  const email = `new-${Date.now()}@example.test`;
  const created = await send(ctx, admin, 'POST', ADMIN_USERS_PATH, { email, role: 'operator' });
  t.equal(created.status, 201);
  t.equal(created.headers.get('cache-control'), 'no-store');
  const body = await json(created);
  t.match(body, { email, role: 'operator', is_active: true, twofa_enrolled: false, must_change_password: true });
  const otp = String(body.one_time_password);
  t.ok(otp.length >= 20, 'one-time password shown once');
  t.notOk(JSON.stringify(await auditRows(ctx, 'admin.user.create', String(body.id))).includes(otp), 'not in the audit row');
  t.equal((await send(ctx, admin, 'POST', ADMIN_USERS_PATH, { email: email.toUpperCase(), role: 'viewer' })).status, 409, 'email taken');
  t.equal((await send(ctx, admin, 'POST', ADMIN_USERS_PATH, { email, role: 'root' })).status, 400);
  t.equal(
    (await send(ctx, admin, 'POST', ADMIN_USERS_PATH, { email: 'x@example.test', role: 'viewer', password: 'mine' })).status,
    400,
    'no admin-chosen password',
  );

  const browser = client(ctx.app, '203.0.113.5');
  ctx.clock.advance(60_000);
  t.equal((await browser.post('/auth/login', { email, password: otp })).status, 302, 'first login goes to 2FA setup');
  const setup = await json(await browser.get('/auth/2fa/setup'));
  const secret = String(setup.manual_entry_key);
  t.equal((await browser.post('/auth/2fa/setup/verify', { code: await totpCode(secret, ctx.clock.now()) })).status, 200);
  t.equal((await browser.post('/auth/2fa/setup/confirm', {})).status, 302, 'the backup codes are confirmed as part of signing in');
  // "Who am I" answers, and says a password change is due; everything else waits for it.
  t.match(await json(await browser.get('/auth/me')), { email, must_change_password: true });
  const blocked = await browser.get(ALERTS_PATH);
  t.equal(blocked.status, 403);
  t.equal(blocked.headers.get('x-password-change-required'), 'true');
  t.same(await json(blocked), { detail: 'Password change required' });

  ctx.clock.advance(30_000);
  const weak = await browser.post('/auth/password', { current_password: otp, new_password: 'short', code: await totpCode(secret, ctx.clock.now()) });
  t.equal(weak.status, 400);
  const wrong = await browser.post('/auth/password', {
    current_password: 'not-the-otp-at-all',
    new_password: 'a much better passphrase 1',
    code: await totpCode(secret, ctx.clock.now()),
  });
  t.equal(wrong.status, 403);
  t.same(await json(wrong), { detail: 'Current password is wrong' });
  ctx.clock.advance(30_000);
  const noCode = await browser.post('/auth/password', { current_password: otp, new_password: 'a much better passphrase 1', code: '000000' });
  t.equal(noCode.status, 401, 'a fresh second factor is required');
  const ok = await browser.post('/auth/password', {
    current_password: otp,
    new_password: 'a much better passphrase 1',
    code: await totpCode(secret, ctx.clock.now()),
  });
  t.equal(ok.status, 204);
  t.equal((await browser.get('/auth/me')).status, 200, 'this browser keeps a (new) session');
  ctx.clock.advance(60_000);
  t.equal((await client(ctx.app, '203.0.113.6').post('/auth/login', { email, password: otp })).status, 401, 'the one-time password is gone');
  const user = await json(await send(ctx, admin, 'GET', adminUserPath(String(body.id))));
  t.equal(user.must_change_password, false);
});

t.test('every user changes their password with the current one and a fresh code; other sessions end', async (t) => {
  const u = await ctx.session('viewer');
  const elsewhere = await signedIn(ctx, u.user);
  ctx.clock.advance(30_000);
  const res = await u.client.post('/auth/password', {
    current_password: u.user.password,
    new_password: 'another long passphrase 2',
    code: await totpCode(u.user.secret ?? '', ctx.clock.now()),
  });
  t.equal(res.status, 204);
  t.equal((await u.client.get('/auth/me')).status, 200);
  t.equal((await elsewhere.get('/auth/me')).status, 401, 'the other session ended');
  t.equal((await client(ctx.app).post('/auth/password', { current_password: 'x', new_password: 'y', code: '1' })).status, 401, 'needs a session');
});

t.test('admin user management: list, role, deactivate, activate, reset 2FA; guards', async (t) => {
  const u = await ctx.session('viewer');
  const id = u.user.user.id;
  const list = await json(await send(ctx, admin, 'GET', ADMIN_USERS_PATH));
  const listed = (list.data as Record<string, unknown>[]).find((r) => r.id === id);
  t.match(listed, { email: u.user.email, role: 'viewer', is_active: true, twofa_enrolled: true });
  t.notOk(JSON.stringify(list).includes('argon2'), 'no password hashes');

  t.match(await json(await send(ctx, admin, 'POST', adminUserActionPath(id, 'role'), { role: 'operator' })), { role: 'operator' });
  t.equal((await send(ctx, admin, 'POST', adminUserActionPath(id, 'role'), { role: 'boss' })).status, 400);

  t.match(await json(await send(ctx, admin, 'POST', adminUserActionPath(id, 'deactivate'))), { is_active: false });
  t.equal((await u.client.get('/auth/me')).status, 401, 'a deactivated user is out at once');
  t.match(await json(await send(ctx, admin, 'POST', adminUserActionPath(id, 'activate'))), { is_active: true });
  t.equal((await u.client.get('/auth/me')).status, 401, 'reactivation does not revive old sessions');

  const fresh = await signedIn(ctx, u.user);
  const reset = await send(ctx, admin, 'POST', adminUserActionPath(id, 'reset-2fa'));
  t.match(await json(reset), { twofa_enrolled: false });
  t.equal((await fresh.get('/auth/me')).status, 401, 'sessions end with the 2FA reset');
  ctx.clock.advance(60_000);
  t.equal((await client(ctx.app).post('/auth/login', { email: u.user.email, password: u.user.password })).status, 302, 'next login goes to setup');

  t.equal((await send(ctx, admin, 'POST', adminUserActionPath('00000000-0000-4000-8000-000000000009', 'deactivate'))).status, 404);
  t.equal((await send(ctx, admin, 'POST', adminUserActionPath(admin.user.user.id, 'deactivate'))).status, 409, 'not yourself');
  t.equal((await send(ctx, admin, 'POST', adminUserActionPath(admin.user.user.id, 'role'), { role: 'viewer' })).status, 409, 'not your own admin role');
  const operator = await ctx.session('operator');
  t.equal((await send(ctx, operator, 'GET', ADMIN_USERS_PATH)).status, 403);
  t.equal((await send(ctx, operator, 'POST', adminUserActionPath(id, 'deactivate'))).status, 403);
  const rows = await auditRows(ctx, 'admin.user.deactivate', id);
  t.match(rows[0], { actorUserId: admin.user.user.id, ip: ADMIN_IP, detail: { outcome: 'succeeded' } });
  t.ok((await auditRows(ctx, 'user.deactivated', id)).length === 1, 'the verb audits too');
});
