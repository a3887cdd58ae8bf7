import t from 'tap';
import { DEFAULT_RECONNECT_BACKOFF, initialReconnectBackoff, nextReconnectDelay, nominalDelayMs, resetReconnectBackoff } from './backoff.ts';
import type { ReconnectBackoffState } from './backoff.ts';

const run = (draws: number[], config = DEFAULT_RECONNECT_BACKOFF): number[] => {
  let state: ReconnectBackoffState = initialReconnectBackoff();
  return draws.map((r) => {
    const next = nextReconnectDelay(state, config, () => r);
    state = next.state;
    return next.delayMs;
  });
};

t.test('spec sequence 1 s, 2 s, 4 s ... capped at 60 s (mid jitter)', async (t) => {
  t.same(run(Array(9).fill(0.5)), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
});

t.test('jitter stays within +/-20 % and never above the cap', async (t) => {
  const table: Array<[number, number, number]> = [
    // [attempts before, draw, expected]
    [0, 0, 800],
    [0, 1, 1200],
    [2, 0, 3200],
    [2, 0.999999, 4800],
    [5, 1, 38400],
    [6, 1, 60000], // 64 s nominal is capped to 60 s; +20 % stays at the cap
    [6, 0, 48000],
    [50, 0.5, 60000],
    [2000, 0.5, 60000], // 2^2000 overflows to Infinity: still the cap
    [1, -3, 1600], // an out-of-range draw is clamped
    [1, 7, 2400],
  ];
  for (const [attempts, draw, expected] of table) {
    const next = nextReconnectDelay({ attempts }, DEFAULT_RECONNECT_BACKOFF, () => draw);
    t.equal(next.delayMs, expected, `attempts ${attempts}, draw ${draw}`);
    t.equal(next.attempt, attempts + 1);
  }
});

t.test('reset after success starts again at the base', async (t) => {
  let state = initialReconnectBackoff();
  for (let i = 0; i < 4; i++) state = nextReconnectDelay(state, DEFAULT_RECONNECT_BACKOFF, () => 0.5).state;
  t.equal(nextReconnectDelay(state, DEFAULT_RECONNECT_BACKOFF, () => 0.5).delayMs, 16000);
  state = resetReconnectBackoff();
  const after = nextReconnectDelay(state, DEFAULT_RECONNECT_BACKOFF, () => 0.5);
  t.equal(after.delayMs, 1000);
  t.equal(after.attempt, 1);
});

t.test('test-sized configuration and degenerate values', async (t) => {
  t.same(run([0.5, 0.5, 0.5, 0.5, 0.5], { baseMs: 10, capMs: 80, jitter: 0.2 }), [10, 20, 40, 80, 80]);
  t.same(run([0, 1], { baseMs: 10, capMs: 80, jitter: 0 }), [10, 20], 'no jitter');
  t.equal(nominalDelayMs(3, { baseMs: 0, capMs: 0, jitter: 0 }), 1, 'base and cap floor at 1 ms');
  t.equal(nominalDelayMs(-2, DEFAULT_RECONNECT_BACKOFF), 1000);
});
