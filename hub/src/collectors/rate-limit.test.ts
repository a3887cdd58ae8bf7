import t from 'tap';
import { createTokenBucket } from './rate-limit.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

t.test('burst of capacity, then one more per refill interval', async (t) => {
  const bucket = createTokenBucket({ capacity: 3, refillPerMinute: 6 });
  t.same(
    [1, 2, 3].map(() => bucket.take('a', at(0)).allowed),
    [true, true, true],
  );
  const refused = bucket.take('a', at(0));
  t.equal(refused.allowed, false);
  t.equal(refused.retryAfterSeconds, 10, 'one token per 10 s');
  t.equal(refused.remaining, 0);
  t.equal(bucket.take('b', at(0)).allowed, true, 'addresses are independent');
  t.equal(bucket.take('a', at(9)).allowed, false);
  t.equal(bucket.take('a', at(10)).allowed, true);
  const reset = bucket.take('c', at(0));
  t.equal(reset.resetAt.getTime(), at(10).getTime(), 'full again one interval after one use');
});

t.test('refused attempts do not consume tokens, and memory stays bounded', async (t) => {
  const bucket = createTokenBucket({ capacity: 1, refillPerMinute: 60, maxKeys: 100 });
  bucket.take('x', at(0));
  for (let i = 0; i < 5; i++) bucket.take('x', at(0.5));
  t.equal(bucket.take('x', at(1)).allowed, true, 'hammering while limited does not push the next slot back');
  for (let i = 0; i < 1000; i++) bucket.take(`flood-${i}`, at(2));
  // A bucket evicted for space behaves like a fresh one, never like an exhausted one.
  t.equal(bucket.take('flood-0', at(2)).allowed, true);
});
