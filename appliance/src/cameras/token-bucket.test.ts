import t from 'tap';
import { createTokenBucket } from './token-bucket.ts';

t.test('evenly spaced slots at the configured rate', async (t) => {
  let now = 1_000;
  const bucket = createTokenBucket({ ratePerSecond: 5 }, () => now);
  t.same([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()], [0, 200, 400, 600], 'queued callers wait their turn');
  now += 600; // the fourth slot is due
  t.equal(bucket.reserve(), 200, 'the next one waits one interval after it');
  now += 10_000;
  t.equal(bucket.reserve(), 0, 'an idle bucket refills');
  t.equal(bucket.reserve(), 200, 'but only up to its burst (1)');
});

t.test('burst lets a few through at once, then paces', async (t) => {
  let now = 0;
  const bucket = createTokenBucket({ ratePerSecond: 10, burst: 3 }, () => now);
  t.same([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()], [0, 0, 0, 100, 200]);
  now = 250;
  t.equal(bucket.reserve(), 50);
});

t.test('within any second no more than rate + burst requests start', async (t) => {
  let now = 0;
  const bucket = createTokenBucket({ ratePerSecond: 4, burst: 2 }, () => now);
  const starts: number[] = [];
  for (let i = 0; i < 40; i++) {
    starts.push(now + bucket.reserve());
    now += 37; // callers arrive faster than the rate
  }
  for (const s of starts) {
    const inWindow = starts.filter((x) => x >= s && x < s + 1000).length;
    t.ok(inWindow <= 4 + 2, `window at ${s}: ${inWindow}`);
  }
});
