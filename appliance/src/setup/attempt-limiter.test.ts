import t from 'tap';
import { createAttemptLimiter } from './attempt-limiter.ts';

t.test('5 attempts, then refused with the wait until the next token', async (t) => {
  let now = 1_000_000;
  const limiter = createAttemptLimiter(() => now);
  for (let i = 0; i < 5; i++) t.same(limiter.take('10.0.0.5'), { allowed: true, remaining: 4 - i });
  t.same(limiter.take('10.0.0.5'), { allowed: false, retryAfterSeconds: 12 });
  now += 6_000;
  t.same(limiter.take('10.0.0.5'), { allowed: false, retryAfterSeconds: 6 }, 'half a token refilled');
  now += 6_000;
  t.same(limiter.take('10.0.0.5'), { allowed: true, remaining: 0 }, 'one token after 12 s');
  t.equal(limiter.take('10.0.0.5').allowed, false);
});

t.test('addresses have their own buckets', async (t) => {
  const now = 0;
  const limiter = createAttemptLimiter(() => now, { burst: 1, perMinute: 1, maxKeys: 10 });
  t.equal(limiter.take('a').allowed, true);
  t.equal(limiter.take('a').allowed, false);
  t.equal(limiter.take('b').allowed, true);
});

t.test('a full minute refills the burst, not more', async (t) => {
  let now = 0;
  const limiter = createAttemptLimiter(() => now);
  for (let i = 0; i < 5; i++) limiter.take('x');
  now += 10 * 60_000;
  for (let i = 0; i < 5; i++) t.equal(limiter.take('x').allowed, true);
  t.equal(limiter.take('x').allowed, false);
});

t.test('the table is bounded: full buckets are forgotten, limited ones kept', async (t) => {
  let now = 0;
  const limiter = createAttemptLimiter(() => now, { burst: 1, perMinute: 1, maxKeys: 2 });
  limiter.take('limited');
  now += 60_000;
  limiter.take('other');
  t.equal(limiter.take('limited').allowed, true, 'refilled after a minute');
  t.equal(limiter.take('limited').allowed, false);
  limiter.take('third');
  t.equal(limiter.take('limited').allowed, false, 'an empty bucket is not dropped to make room');
});
