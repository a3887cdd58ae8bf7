import t from 'tap';
import { eq } from 'drizzle-orm';
import { auditLog } from '../db/schema/audit-log.ts';
import { backupCodes } from '../db/schema/backup-codes.ts';
import { twoFactorAttempts } from '../db/schema/two-factor-attempts.ts';
import { userTwoFactor } from '../db/schema/user-two-factor.ts';
import { users } from '../db/schema/users.ts';
import { hashBackupCode, normalizeBackupCode } from './backup-codes.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { decodeQrDataUri } from './qr-decode.test-helper.ts';
import { openSecret } from '../platform/secrets/secret-box.ts';
import { authTestContext, client, testUser } from './auth.test-helper.ts';
import { totpCode, totpUri } from './totp.ts';

const ctx = await authTestContext(t);
const { app, clock, database } = ctx;

function cookieLine(res: Response, name: string): string {
  return res.headers.getSetCookie().find((l) => l.startsWith(`${name}=`)) ?? '';
}

t.test('anonymous → login with invalid credentials: 401, same body for every reason', async (t) => {
  const known = await testUser(ctx, 'viewer', { enrolled: true });
  const inactive = await testUser(ctx, 'viewer', { enrolled: true });
  await database.db.update(users).set({ isActive: false }).where(eq(users.id, inactive.user.id));
  const c = client(app, '198.51.100.1');
  const bodies: unknown[] = [];
  for (const creds of [
    { email: 'nobody@example.test', password: 'whatever password' },
    { email: known.email, password: 'wrong password!!' },
    { email: inactive.email, password: inactive.password },
  ]) {
    clock.advance(60_000);
    const res = await c.post('/auth/login', creds);
    t.equal(res.status, 401);
    t.equal(c.jar.values.get('access_token'), undefined, 'no token issued');
    bodies.push(await res.json());
  }
  t.same(bodies, Array(3).fill({ detail: 'Invalid email or password' }));
  const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, 'auth.login_failed'));
  t.same(audit.map((a) => a.detail['reason']).sort(), ['inactive', 'unknown_email', 'wrong_password']);
  t.ok(
    audit.every((a) => a.ip === '198.51.100.1' && a.userAgent === 'tap-test/1.0'),
    'address and user agent recorded',
  );
});

t.test('not enrolled: login → setup → verify → confirm → dashboard', async (t) => {
  const u = await testUser(ctx, 'operator');
  const c = client(app);
  clock.advance(60_000);
  const login = await c.post('/auth/login', { email: u.email.toUpperCase(), password: u.password });
  t.equal(login.status, 302, 'valid and not enrolled: redirect');
  t.equal(login.headers.get('location'), '/auth/2fa/setup');
  const cookie = cookieLine(login, 'access_token');
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Lax/);
  t.match(cookie, /Secure/, 'public URL is https');
  t.match(cookie, /Max-Age=300/, 'partial token lives 5 minutes');

  t.equal((await c.get('/auth/me')).status, 401, 'partial token is not a session');

  const setup = await c.get('/auth/2fa/setup');
  t.equal(setup.status, 200);
  const material = (await setup.json()) as { qr_code_uri: string; manual_entry_key: string; issuer: string; account_name: string };
  t.match(material.qr_code_uri, /^data:image\/png;base64,iVBORw0KGgo/);
  t.match(material.manual_entry_key, /^[A-Z2-7]{32}$/);
  t.equal(decodeQrDataUri(material.qr_code_uri)?.text, totpUri(material.manual_entry_key, u.email), 'the QR code scans to the otpauth URI of this secret');
  t.equal(material.issuer, 'ALPR Hub');
  t.equal(material.account_name, u.email);
  const [stored] = await database.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, u.user.id));
  t.equal(stored?.pending, true, 'stored pending');
  t.notOk(Buffer.from(stored?.secretCiphertext ?? Buffer.alloc(0)).includes(Buffer.from(material.manual_entry_key)), 'not stored in clear');
  t.equal(
    openSecret(authKeys(ctx.deps.config).totpMasterKey, { ciphertext: stored?.secretCiphertext ?? Buffer.alloc(0), salt: stored?.salt ?? Buffer.alloc(0) }),
    material.manual_entry_key,
  );

  const wrong = await c.post('/auth/2fa/setup/verify', { code: '000000' === (await totpCode(material.manual_entry_key, clock.now())) ? '111111' : '000000' });
  t.equal(wrong.status, 400, 'invalid setup code: 400, may retry');
  t.match(await wrong.json(), { detail: 'Invalid verification code' });

  const ok = await c.post('/auth/2fa/setup/verify', { code: await totpCode(material.manual_entry_key, clock.now()) });
  t.equal(ok.status, 200);
  const shown = (await ok.json()) as { codes: string[]; warning: string };
  t.equal(shown.codes.length, 10);
  for (const code of shown.codes) t.match(code, /^[0-9A-F]{4}-[0-9A-F]{4}$/);
  t.match(shown.warning, /once/);
  const [enrolled] = await database.db.select().from(users).where(eq(users.id, u.user.id));
  t.equal(enrolled?.twofaEnrolled, true);
  t.same(enrolled?.twofaEnrolledAt, clock.now());
  const hashes = await database.db.select().from(backupCodes).where(eq(backupCodes.userId, u.user.id));
  t.same(hashes.map((h) => h.codeHash).sort(), shown.codes.map((code) => hashBackupCode(normalizeBackupCode(code) ?? '')).sort(), 'only SHA-256 stored');
  t.match(cookieLine(ok, 'access_token'), /Max-Age=86400/, 'full session, 24 h');

  const confirm = await c.post('/auth/2fa/setup/confirm', {});
  t.equal(confirm.status, 302);
  t.equal(confirm.headers.get('location'), '/');
  t.equal((await c.get('/auth/me')).status, 200, 'signed in');
  const again = await c.get('/auth/2fa/setup');
  t.equal(again.status, 409, 'setup refused once enrolled');
});

t.test('enrolled: login → partial token → verify code → session; replay and expiry refused', async (t) => {
  const u = await testUser(ctx, 'viewer', { enrolled: true });
  const secret = u.secret ?? '';
  clock.advance(60_000);
  const browser = client(app, '203.0.113.9', 'Browser/2');
  const login = await browser.post('/auth/login', { email: u.email, password: u.password });
  t.equal(login.status, 200);
  const body = (await login.json()) as { requires_2fa: boolean; partial_token: string; expires_in: number };
  t.match(body, { requires_2fa: true, expires_in: 300 });
  t.equal(body.partial_token.split('.').length, 3);
  const claims = JSON.parse(Buffer.from(body.partial_token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  t.match(claims, { sub: u.user.id, type: 'partial' });
  t.equal(Number(claims['exp']) - Number(claims['iat']), 300);

  const bad = await browser.post('/auth/2fa/verify', { code: '12345x' });
  t.equal(bad.status, 401);
  t.same(await bad.json(), { detail: 'Invalid verification code' });

  // The token as a body field, from a client without the cookie (an API client).
  const api = client(app, '203.0.113.10');
  const code = await totpCode(secret, clock.now());
  const verified = await api.post('/auth/2fa/verify', { code, partial_token: body.partial_token });
  t.equal(verified.status, 302);
  t.equal(verified.headers.get('location'), '/');
  t.equal((await api.get('/auth/me')).status, 200);

  const replay = await browser.post('/auth/2fa/verify', { code });
  t.equal(replay.status, 401, 'same code twice: refused');

  const attempts = await database.db.select().from(twoFactorAttempts).where(eq(twoFactorAttempts.userId, u.user.id));
  const loginAttempts = attempts.filter((a) => a.attemptType === 'totp');
  t.same(
    loginAttempts.map((a) => [a.success, a.failureReason, a.ipAddress, a.userAgent]),
    [
      [false, 'malformed_code', '203.0.113.9', 'Browser/2'],
      [true, null, '203.0.113.10', 'tap-test/1.0'],
      [false, 'replayed_code', '203.0.113.9', 'Browser/2'],
    ],
  );

  clock.advance(301_000);
  const late = await browser.post('/auth/2fa/verify', { code: await totpCode(secret, clock.now()) });
  t.equal(late.status, 401, 'partial token expired after 5 minutes');
  t.same(await late.json(), { detail: 'Invalid token' });
  const none = await client(app).post('/auth/2fa/verify', { code: '123456' });
  t.same([none.status, await none.json()], [401, { detail: 'Not authenticated' }]);
});

t.test('recovery with a backup code: single use, 2FA disabled, back to setup', async (t) => {
  const u = await testUser(ctx, 'operator');
  const c = client(app);
  clock.advance(60_000);
  await c.post('/auth/login', { email: u.email, password: u.password });
  const setup = (await (await c.get('/auth/2fa/setup')).json()) as { manual_entry_key: string };
  const enrolled = (await (await c.post('/auth/2fa/setup/verify', { code: await totpCode(setup.manual_entry_key, clock.now()) })).json()) as {
    codes: string[];
  };
  const [first = '', second = ''] = enrolled.codes;

  const page = await c.get('/auth/2fa/recovery');
  t.equal(page.status, 200);
  t.match(await page.text(), /<form method="post" action="\/auth\/2fa\/recovery">/);

  clock.advance(60_000);
  const lost = client(app);
  await lost.post('/auth/login', { email: u.email, password: u.password });
  const invalid = await lost.post('/auth/2fa/recovery', { code: 'FFFF-FFFF' });
  t.same([invalid.status, await invalid.json()], [401, { detail: 'Invalid backup code' }]);

  const used = await lost.post('/auth/2fa/recovery', { code: first.toLowerCase().replace('-', '') });
  t.equal(used.status, 302, 'lower case without hyphen accepted');
  t.equal(used.headers.get('location'), '/auth/2fa/setup');
  const [after] = await database.db.select().from(users).where(eq(users.id, u.user.id));
  t.equal(after?.twofaEnrolled, false, '2FA disabled');
  t.equal((await database.db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, u.user.id))).length, 0, 'secret deleted');
  t.equal((await c.get('/auth/me')).status, 403, 'existing sessions now need enrollment');
  const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, 'auth.recovery_used'));
  t.equal(audit.filter((a) => a.targetId === u.user.id).length, 1, 'recovery logged');

  // Setup again with the refreshed partial token, then the spent code fails, an unspent one of the old set too.
  const again = (await (await lost.get('/auth/2fa/setup')).json()) as { manual_entry_key: string };
  const reenrolled = await lost.post('/auth/2fa/setup/verify', { code: await totpCode(again.manual_entry_key, clock.now()) });
  t.equal(reenrolled.status, 200);
  clock.advance(60_000);
  const third = client(app);
  await third.post('/auth/login', { email: u.email, password: u.password });
  t.equal((await third.post('/auth/2fa/recovery', { code: first })).status, 401, 'spent code refused');
  t.equal((await third.post('/auth/2fa/recovery', { code: second })).status, 401, 'codes of the old enrollment replaced');
  const attempts = await database.db.select().from(twoFactorAttempts).where(eq(twoFactorAttempts.userId, u.user.id));
  t.same(
    attempts.filter((a) => a.attemptType === 'backup_code').map((a) => a.success),
    [false, true, false, false],
    'every backup-code attempt logged',
  );
});

t.test('logout clears the cookie', async (t) => {
  const u = await testUser(ctx, 'viewer', { enrolled: true });
  clock.advance(60_000);
  const c = client(app);
  await c.post('/auth/login', { email: u.email, password: u.password });
  await c.post('/auth/2fa/verify', { code: await totpCode(u.secret ?? '', clock.now()) });
  t.equal((await c.get('/auth/me')).status, 200);
  const out = await c.post('/auth/logout', {});
  t.equal(out.status, 204);
  t.match(cookieLine(out, 'access_token'), /Max-Age=0/);
  t.same(await (await c.get('/auth/me')).json(), { detail: 'Not authenticated' });
});
