/**
 * Issue 10 section 1: login was throttled per address only (20 wrong passwords from 20
 * addresses, then the right one, all answered). Now failures per account slow guessing,
 * without a lock: the wait is capped, ages out, and the user's own known address passes.
 */
import t from 'tap';
import { ACCOUNT_THROTTLE, throttleWaitMs } from './account-throttle.ts';
import { authTestContext, client, signedIn, testUser } from './auth.test-helper.ts';

const ctx = await authTestContext(t);
let n = 0;
/** A fresh address for every attempt: the per-address limit never applies. */
const login = (email: string, password: string, ip = `203.0.113.${(n += 1) % 250}`) => client(ctx.app, ip).post('/auth/login', { email, password });

t.test('wait schedule: 5 free failures, then 1 s doubling, capped at 60 s', async (t) => {
  const now = new Date('2026-01-15T10:00:00Z');
  const fails = (k: number) => Array.from({ length: k }, () => now);
  t.equal(throttleWaitMs(fails(4), now), 0);
  t.equal(throttleWaitMs(fails(5), now), 1000);
  t.equal(throttleWaitMs(fails(7), now), 4000);
  t.equal(throttleWaitMs(fails(40), now), ACCOUNT_THROTTLE.maxDelayMs, 'never more than a minute');
  t.equal(throttleWaitMs(fails(40), new Date(now.getTime() + 60_000)), 0);
});

t.test('20 wrong passwords from 20 addresses: guessing is slowed, the right password too, then it works', async (t) => {
  const u = await testUser(ctx, 'operator', { enrolled: true });
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await login(u.email, `wrong guess ${i}`)).status);
  t.same(statuses.slice(0, 5), [401, 401, 401, 401, 401], 'typos cost nothing');
  t.ok(
    statuses.slice(5).every((s) => s === 429 || s === 401),
    'then throttled',
  );
  t.ok(statuses.filter((s) => s === 429).length >= 14, `most later guesses refused unanswered (${statuses.join(',')})`);

  const right = await login(u.email, u.password);
  t.equal(right.status, 429, 'the right password is not answered either (no oracle)');
  const wait = Number(right.headers.get('retry-after'));
  t.ok(wait >= 1 && wait <= 60, `Retry-After ${wait} s`);
  t.match(await right.json(), { detail: /Too many failed logins/, retry_after_seconds: wait });

  ctx.clock.advance(wait * 1000);
  t.equal((await login(u.email, u.password)).status, 200, 'after the wait the user gets in: no lock');
  t.equal((await login(u.email, 'wrong again')).status, 401, 'a success cleared the count');
});

t.test("the user's known address is not throttled; unknown emails are throttled alike", async (t) => {
  const u = await testUser(ctx, 'viewer', { enrolled: true });
  await signedIn(ctx, u, '198.51.100.77');
  for (let i = 0; i < 12; i++) await login(u.email, `attack ${i}`);
  t.equal((await login(u.email, u.password)).status, 429, 'from a new address: slowed');
  t.equal((await login(u.email, u.password, '198.51.100.77')).status, 200, 'from where the user signed in before: straight in');

  const ghost = 'nobody-here@example.test';
  const ghostStatuses: number[] = [];
  for (let i = 0; i < 8; i++) ghostStatuses.push((await login(ghost, `x${i}`)).status);
  t.ok(ghostStatuses.includes(429), 'a non-existent account is throttled the same way: a 429 reveals nothing');
});
