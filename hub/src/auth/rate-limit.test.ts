import t from 'tap';
import { Hono } from 'hono';
import { createHubApp } from '../app.ts';
import { requireUser, type AuthEnv } from './middleware.ts';
import { rateLimit } from './rate-limit.ts';
import { authTestContext, client, signedIn, testUser } from './auth.test-helper.ts';

const ctx = await authTestContext(t);
const { app, clock, deps } = ctx;
const epoch = () => Math.floor(clock.now().getTime() / 1000);

t.test('login: 5 per minute per address, burst allowed, then one per 12 s', async (t) => {
  clock.advance(3_600_000);
  const c = client(app, '192.0.2.200');
  const creds = { email: 'nobody@example.test', password: 'not a real password' };
  for (let i = 0; i < 5; i++) {
    const res = await c.post('/auth/login', creds);
    t.equal(res.status, 401, `burst ${i + 1} reaches the password check`);
    t.equal(res.headers.get('x-ratelimit-limit'), '5');
    t.equal(res.headers.get('x-ratelimit-remaining'), String(4 - i));
    t.equal(res.headers.get('x-ratelimit-reset'), String(epoch() + 12 * (i + 1)));
  }
  const limited = await c.post('/auth/login', creds);
  t.equal(limited.status, 429);
  t.same(await limited.json(), { detail: 'Rate limit exceeded', retry_after_seconds: 12 });
  t.equal(limited.headers.get('retry-after'), '12');
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');

  // Another login name: 5 failures for `creds` also started the per-account throttle
  // (account-throttle.test.ts), which this test is not about.
  const otherName = { ...creds, email: 'nobody-else@example.test' };
  t.equal((await client(app, '192.0.2.201').post('/auth/login', otherName)).status, 401, 'another address is not limited');
  // A second hub process on the same database shares the counter.
  const other = client(createHubApp(deps), '192.0.2.200');
  t.equal((await other.post('/auth/login', creds)).status, 429, 'shared through Postgres');
  clock.advance(12_000);
  t.equal((await other.post('/auth/login', otherName)).status, 401, 'one attempt back after 12 s');
  t.equal((await c.post('/auth/login', creds)).status, 429);
});

t.test('register and forgot-password: 3 per minute per address', async (t) => {
  clock.advance(3_600_000);
  for (const path of ['/auth/register', '/auth/forgot-password']) {
    const c = client(app, '192.0.2.210');
    const body = { email: 'someone@example.test', password: 'a long enough password' };
    for (let i = 0; i < 3; i++) t.equal((await c.post(path, body)).status, 202, `${path} ${i + 1}`);
    const res = await c.post(path, body);
    t.equal(res.status, 429, path);
    t.equal(res.headers.get('x-ratelimit-limit'), '3');
    t.equal(res.headers.get('retry-after'), '20');
  }
});

t.test('per-user sliding window for user endpoints', async (t) => {
  const api = new Hono<AuthEnv>();
  const path = '/api/v1/export/x'; // api-path-literal: this test's own route
  api.get(path, requireUser(deps), rateLimit(deps, { scope: 'test.export', limit: 5, windowSeconds: 60, key: 'user' }), (c) => c.json({ ok: true }));
  const alice = await signedIn(ctx, await testUser(ctx, 'operator', { enrolled: true }));
  const bob = await signedIn(ctx, await testUser(ctx, 'operator', { enrolled: true }));
  const get = (cookie: string) => api.request(path, { headers: { cookie } });
  const start = epoch();
  for (let i = 0; i < 5; i++) {
    const res = await get(alice.jar.header());
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-ratelimit-remaining'), String(4 - i));
    t.equal(res.headers.get('x-ratelimit-reset'), String(start + 60), 'reset when the first hit leaves the window');
    clock.advance(10_000);
  }
  const limited = await get(alice.jar.header());
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '10', 'the first hit leaves the window 10 s from now');
  t.equal((await get(bob.jar.header())).status, 200, 'per user');
  clock.advance(10_000);
  t.equal((await get(alice.jar.header())).status, 200, 'sliding: one slot back');
  t.equal((await get(alice.jar.header())).status, 429, 'but only one (no fixed-window reset)');
});
