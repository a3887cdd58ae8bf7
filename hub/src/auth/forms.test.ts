import t from 'tap';
import { eq } from 'drizzle-orm';
import { auditLog } from '../db/schema/audit-log.ts';
import { users } from '../db/schema/users.ts';
import { setActive } from './user-admin.ts';
import { authTestContext, client, testUser } from './auth.test-helper.ts';
import { totpCode } from './totp.ts';

const ctx = await authTestContext(t);
const { app, clock, database, deps } = ctx;

t.test('form posts need the double-submit CSRF token; JSON posts do not', async (t) => {
  const u = await testUser(ctx, 'viewer', { enrolled: true });
  clock.advance(60_000);
  const c = client(app);
  const creds = { email: u.email, password: u.password };
  const missing = await c.postForm('/auth/login', creds);
  t.same([missing.status, await missing.json()], [403, { detail: 'CSRF token missing or invalid' }], 'no cookie, no field');

  const issued = await c.get('/auth/csrf');
  const { csrf_token: token } = (await issued.json()) as { csrf_token: string };
  t.equal(c.jar.values.get('csrf_token'), token, 'cookie set');
  t.equal((await c.postForm('/auth/login', creds)).status, 403, 'cookie but no field');
  t.equal((await c.postForm('/auth/login', { ...creds, csrf_token: 'x'.repeat(43) })).status, 403, 'wrong field');
  t.equal((await client(app).postForm('/auth/login', { ...creds, csrf_token: token })).status, 403, 'field without the cookie (another browser)');

  const ok = await c.postForm('/auth/login', { ...creds, csrf_token: token });
  t.equal(ok.status, 200, 'form login with token');
  const verify = await c.postForm('/auth/2fa/verify', { code: await totpCode(u.secret ?? '', clock.now()), csrf_token: token });
  t.equal(verify.status, 302, 'form verify');
  t.equal((await c.get('/auth/me')).status, 200);
  t.equal((await c.postForm('/auth/logout', {}, { 'x-csrf-token': token })).status, 204, 'header form of the token');

  clock.advance(60_000);
  const plain = await c.post('/auth/login', creds, { 'content-type': 'text/plain' });
  t.same([plain.status, await plain.json()], [403, { detail: 'CSRF token missing or invalid' }], 'text/plain refused (no CSRF bypass)');
  const recovery = await c.get('/auth/2fa/recovery', { accept: 'application/json' });
  t.same(await recovery.json(), { fields: ['code', 'partial_token', 'csrf_token'], csrf_token: token });
});

t.test('register: inactive until an admin approves; same 202 for a taken email', async (t) => {
  clock.advance(3_600_000);
  const c = client(app, '192.0.2.80');
  const first = await c.post('/auth/register', { email: 'New.Person@example.test', password: 'twelve chars long' });
  t.equal(first.status, 202);
  const body = await first.json();
  const dup = await c.post('/auth/register', { email: 'new.person@example.test', password: 'another long password' });
  t.same([dup.status, await dup.json()], [202, body], 'indistinguishable');
  const short = await c.post('/auth/register', { email: 'x@example.test', password: 'short' });
  t.equal(short.status, 400);
  t.match(await short.json(), { detail: /password/ });

  const rows = await database.db.select().from(users).where(eq(users.email, 'new.person@example.test'));
  t.equal(rows.length, 1);
  t.match(rows[0], { role: 'viewer', isActive: false, twofaEnrolled: false });
  t.equal((await c.post('/auth/login', { email: 'new.person@example.test', password: 'twelve chars long' })).status, 401, 'not before approval');
  await setActive(deps, '00000000-0000-0000-0000-000000000000', 'new.person@example.test', true);
  clock.advance(60_000);
  const approved = await c.post('/auth/login', { email: 'new.person@example.test', password: 'twelve chars long' });
  t.equal(approved.status, 302, 'approved: goes to 2FA setup');
});

t.test('forgot-password: same 202 whether or not the email exists; request recorded', async (t) => {
  clock.advance(3_600_000);
  const u = await testUser(ctx, 'operator', { enrolled: true });
  const c = client(app, '192.0.2.81');
  const known = await c.post('/auth/forgot-password', { email: u.email });
  const unknown = await c.post('/auth/forgot-password', { email: 'ghost@example.test' });
  t.equal(known.status, 202);
  t.same(await known.json(), await unknown.json());
  const rows = await database.db.select().from(auditLog).where(eq(auditLog.action, 'auth.password_reset_requested'));
  t.same(
    rows.map((r) => [r.targetId, r.detail['known']]),
    [
      [u.user.id, true],
      [null, false],
    ],
  );
});
