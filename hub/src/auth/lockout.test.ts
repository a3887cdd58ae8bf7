import t from 'tap';
import { eq } from 'drizzle-orm';
import { auditLog } from '../db/schema/audit-log.ts';
import { twoFactorAttempts } from '../db/schema/two-factor-attempts.ts';
import { authTestContext, client, testUser, type Client } from './auth.test-helper.ts';
import { totpCode } from './totp.ts';

const ctx = await authTestContext(t);
const { app, clock, database } = ctx;

async function wrongCode(secret: string): Promise<string> {
  const right = await totpCode(secret, clock.now());
  return right === '000000' ? '111111' : '000000';
}

async function partial(email: string, password: string): Promise<Client> {
  clock.advance(60_000);
  const c = client(app, '192.0.2.44', 'Attacker/1');
  const res = await c.post('/auth/login', { email, password });
  if (res.status !== 200) throw new Error(`login ${res.status}`);
  return c;
}

t.test('5 failures in 5 minutes lock 15 minutes; unlock with a moved clock', async (t) => {
  const u = await testUser(ctx, 'viewer', { enrolled: true });
  const secret = u.secret ?? '';
  const c = await partial(u.email, u.password);
  for (let i = 1; i <= 4; i++) {
    const res = await c.post('/auth/2fa/verify', { code: await wrongCode(secret) });
    t.equal(res.status, 401, `failure ${i}`);
    clock.advance(20_000);
  }
  const fifth = await c.post('/auth/2fa/verify', { code: await wrongCode(secret) });
  t.equal(fifth.status, 429, 'the 5th failure locks');
  t.same(await fifth.json(), {
    detail: 'Too many failed 2FA attempts; try again in 900 seconds',
    retry_after_seconds: 900,
    locked_until: new Date(clock.now().getTime() + 900_000).toISOString(),
  });
  t.equal(fifth.headers.get('retry-after'), '900');

  clock.advance(600_000);
  const fresh = await partial(u.email, u.password);
  const locked = await fresh.post('/auth/2fa/verify', { code: await totpCode(secret, clock.now()) });
  t.equal(locked.status, 429, 'even the right code is refused while locked');
  t.match(await locked.json(), { retry_after_seconds: 240 }, '15 min minus the 11 min waited (one minute went to the login)');

  clock.advance(240_000);
  const after = await partial(u.email, u.password);
  const ok = await after.post('/auth/2fa/verify', { code: await totpCode(secret, clock.now()) });
  t.equal(ok.status, 302, 'unlocked after 15 minutes');

  const attempts = await database.db.select().from(twoFactorAttempts).where(eq(twoFactorAttempts.userId, u.user.id));
  const login = attempts.filter((a) => a.attemptType === 'totp');
  t.same(
    login.map((a) => [a.success, a.failureReason]),
    [...Array(5).fill([false, 'invalid_code']), [false, 'locked_out'], [true, null]],
  );
  t.ok(login.every((a) => a.ipAddress === '192.0.2.44' && a.userAgent === 'Attacker/1'));
  const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, 'auth.two_factor_locked'));
  t.equal(audit.filter((a) => a.targetId === u.user.id).length, 1, 'lockout audited');
});

t.test('failures spread over more than 5 minutes do not lock; backup-code failures count too', async (t) => {
  const u = await testUser(ctx, 'viewer', { enrolled: true });
  const secret = u.secret ?? '';
  for (let i = 0; i < 6; i++) {
    const c = await partial(u.email, u.password); // one minute apart (+20 s)
    clock.advance(20_000);
    t.equal((await c.post('/auth/2fa/verify', { code: await wrongCode(secret) })).status, 401);
  }
  clock.advance(600_000);
  const c = await partial(u.email, u.password);
  for (let i = 0; i < 2; i++) t.equal((await c.post('/auth/2fa/verify', { code: await wrongCode(secret) })).status, 401, `code failure ${i + 1}`);
  for (let i = 0; i < 2; i++) t.equal((await c.post('/auth/2fa/recovery', { code: 'AAAA-AAAA' })).status, 401, `backup failure ${i + 1}`);
  t.equal((await c.post('/auth/2fa/recovery', { code: 'AAAA-AAAA' })).status, 429, 'the 5th failure of either kind locks');
});
