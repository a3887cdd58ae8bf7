import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { users } from '../db/schema/users.ts';
import { deriveKeys } from '../platform/secrets/hub-secret.ts';
import { requireUser, type AuthEnv } from './middleware.ts';
import { issuePartialToken, issueSessionToken } from './sessions.ts';
import { signToken } from './tokens.ts';
import { authTestContext, client, signedIn, testUser } from './auth.test-helper.ts';
import { totpCode } from './totp.ts';

const ctx = await authTestContext(t);
const { deps, clock, database } = ctx;

// A protected API as another domain would mount it, next to the real auth routes.
// Its paths are this test's own, not the hub's (so not in platform/http/paths.ts); under /api/v1 as a domain's would be.
const ANYONE = '/api/v1/anyone'; // api-path-literal: this test's own route
const ADMIN_THING = '/api/v1/admin/thing'; // api-path-literal: this test's own route
const OPERATOR_THING = '/api/v1/watchlists'; // api-path-literal: this test's own route
const FRESH_2FA_THING = '/api/v1/admin/keys'; // api-path-literal: this test's own route
const app = new Hono<AuthEnv>();
app.route('/', ctx.app);
app.get(ANYONE, requireUser(deps), (c) => c.json({ id: c.get('user').id, role: c.get('user').role }));
app.get(ADMIN_THING, requireUser(deps, { roles: ['admin'] }), (c) => c.json({ ok: true }));
app.get(OPERATOR_THING, requireUser(deps, { roles: ['admin', 'operator'] }), (c) => c.json({ ok: true }));
app.post(FRESH_2FA_THING, requireUser(deps, { roles: ['admin'], freshSecondFactorWithinSeconds: 300 }), (c) => c.json({ ok: true }));

async function check(t: Test, res: Response, status: number, detail: string, header?: [string, string]) {
  t.equal(res.status, status, detail);
  t.same(await res.json(), { detail });
  if (header) t.equal(res.headers.get(header[0]), header[1], `${header[0]}: ${header[1]}`);
}

const withCookie = (token: string) => ({ cookie: `access_token=${token}` });

t.test('protected-resource checks in spec order', async (t) => {
  const u = await testUser(ctx, 'operator', { enrolled: true });
  const get = (headers: Record<string, string> = {}) => app.request(ANYONE, { headers });

  await check(t, await get(), 401, 'Not authenticated');
  await check(t, await get(withCookie('')), 401, 'Not authenticated', undefined);
  await check(t, await get(withCookie(issuePartialToken(deps, u.user.id))), 401, '2FA verification required', ['x-2fa-required', 'true']);
  await check(t, await get(withCookie('not-a-token')), 401, 'Invalid token');
  const now = Math.floor(clock.now().getTime() / 1000);
  const foreign = signToken(deriveKeys(Buffer.alloc(32, 1)).sessionKey, { sub: u.user.id, type: 'access', iat: now, exp: now + 60, tfa: now });
  await check(t, await get(withCookie(foreign)), 401, 'Invalid token');
  const expired = issueSessionToken(deps, u.user.id, clock.now());
  clock.advance(24 * 3600 * 1000);
  await check(t, await get(withCookie(expired)), 401, 'Invalid token');
  await check(t, await get(withCookie(issueSessionToken(deps, randomUUID(), clock.now()))), 401, 'User not found or inactive');
  await check(t, await get(withCookie(issueSessionToken(deps, 'not-a-uuid', clock.now()))), 401, 'User not found or inactive');

  const good = issueSessionToken(deps, u.user.id, clock.now());
  t.same(await (await get(withCookie(good))).json(), { id: u.user.id, role: 'operator' });
  await database.db.update(users).set({ isActive: false }).where(eq(users.id, u.user.id));
  await check(t, await get(withCookie(good)), 401, 'User not found or inactive');
  await database.db.update(users).set({ isActive: true, twofaEnrolled: false }).where(eq(users.id, u.user.id));
  await check(t, await get(withCookie(good)), 403, '2FA enrollment required', ['x-2fa-setup-required', 'true']);
  // Partial beats everything after it: a partial token of an inactive user still says 2FA.
  await database.db.update(users).set({ isActive: false }).where(eq(users.id, u.user.id));
  await check(t, await get(withCookie(issuePartialToken(deps, u.user.id))), 401, '2FA verification required');
});

t.test('role denials for each role', async (t) => {
  const admin = await signedIn(ctx, await testUser(ctx, 'admin', { enrolled: true }));
  const operator = await signedIn(ctx, await testUser(ctx, 'operator', { enrolled: true }));
  const viewer = await signedIn(ctx, await testUser(ctx, 'viewer', { enrolled: true }));
  const get = (c: typeof admin, path: string) => app.request(path, { headers: { cookie: c.jar.header() } });
  t.equal((await get(admin, ADMIN_THING)).status, 200, 'admin: admin route');
  await check(t, await get(operator, ADMIN_THING), 403, 'Insufficient permissions');
  await check(t, await get(viewer, ADMIN_THING), 403, 'Insufficient permissions');
  t.equal((await get(admin, OPERATOR_THING)).status, 200, 'admin: operator route');
  t.equal((await get(operator, OPERATOR_THING)).status, 200, 'operator: operator route');
  await check(t, await get(viewer, OPERATOR_THING), 403, 'Insufficient permissions');
  for (const c of [admin, operator, viewer]) t.equal((await get(c, ANYONE)).status, 200, 'any role: open route');
});

t.test('fresh second factor: required within 5 minutes, renewed by reverify', async (t) => {
  const u = await testUser(ctx, 'admin', { enrolled: true });
  const c = await signedIn(ctx, u);
  const post = () => app.request(FRESH_2FA_THING, { method: 'POST', headers: { cookie: c.jar.header(), 'content-type': 'application/json' } });
  t.equal((await post()).status, 200, 'just signed in');
  clock.advance(301_000);
  await check(t, await post(), 403, 'Recent 2FA verification required', ['x-2fa-fresh-required', 'true']);
  const wrong = await c.post('/auth/2fa/reverify', { code: '000000' === (await totpCode(u.secret ?? '', clock.now())) ? '111111' : '000000' });
  t.equal(wrong.status, 401);
  const re = await c.post('/auth/2fa/reverify', { code: await totpCode(u.secret ?? '', clock.now()) });
  t.equal(re.status, 204);
  t.equal((await post()).status, 200, 'fresh again');
  const anonymous = await client(ctx.app).post('/auth/2fa/reverify', { code: '123456' });
  t.equal(anonymous.status, 401);
});
