import t from 'tap';
import type { BackoffState } from './backoff.ts';
import { DEFAULT_BACKOFF, initialBackoff, nextBackoff, resetBackoff } from './backoff.ts';

const sequence = (random: () => number, n: number, config = DEFAULT_BACKOFF): number[] => {
  let state: BackoffState = initialBackoff();
  const delays: number[] = [];
  for (let i = 0; i < n; i++) {
    const next = nextBackoff(state, config, random);
    delays.push(next.delayMs);
    state = next.state;
  }
  return delays;
};

t.test('decorrelated jitter with a fixed random', async (t) => {
  const cases: [string, number, number[]][] = [
    // uniform(base, prev*3): random 0 always gives the floor, 1 gives x3 up to the cap.
    ['random 0: never below base, never grows', 0, [1000, 1000, 1000, 1000]],
    ['random 1: x3 each time, capped at 60 s', 1, [3000, 9000, 27000, 60000, 60000, 60000]],
    ['random 0.5: about x2 each time', 0.5, [2000, 3500, 5750, 9125, 14188, 21782, 33173, 50260, 60000]],
    ['random 0.999 (growth is visible)', 0.999, [2998, 8986, 26932, 60000]],
  ];
  for (const [name, r, expected] of cases)
    t.same(
      sequence(() => r, expected.length),
      expected,
      name,
    );
});

t.test('configurable base and cap; failures counted', async (t) => {
  t.same(
    sequence(() => 1, 4, { baseMs: 200, capMs: 2_000 }),
    [600, 1800, 2000, 2000],
  );
  t.same(
    sequence(() => 0.25, 3, { baseMs: 5_000, capMs: 5_000 }),
    [5000, 5000, 5000],
    'cap equal to base is constant',
  );
  let state = initialBackoff();
  for (let i = 0; i < 3; i++) state = nextBackoff(state, DEFAULT_BACKOFF, () => 1).state;
  t.equal(state.failures, 3);
  t.equal(state.lastDelayMs, 27_000);
});

t.test('a reset after success starts again from base', async (t) => {
  let state = initialBackoff();
  for (let i = 0; i < 5; i++) state = nextBackoff(state, DEFAULT_BACKOFF, () => 1).state;
  t.equal(state.lastDelayMs, 60_000);
  state = resetBackoff();
  t.same(state, { failures: 0, lastDelayMs: 0 });
  t.equal(nextBackoff(state, DEFAULT_BACKOFF, () => 1).delayMs, 3000);
});

t.test('out-of-range randoms are clamped; delays stay within [base, cap]', async (t) => {
  t.equal(nextBackoff(initialBackoff(), DEFAULT_BACKOFF, () => -5).delayMs, 1000);
  t.equal(nextBackoff(initialBackoff(), DEFAULT_BACKOFF, () => 7).delayMs, 3000);
  let state = initialBackoff();
  let seed = 42;
  const lcg = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const outOfRange: number[] = [];
  for (let i = 0; i < 200; i++) {
    const next = nextBackoff(state, DEFAULT_BACKOFF, lcg);
    if (next.delayMs < 1000 || next.delayMs > 60_000) outOfRange.push(next.delayMs);
    state = next.state;
  }
  t.same(outOfRange, [], '200 pseudo-random delays all within [1 s, 60 s]');
});
