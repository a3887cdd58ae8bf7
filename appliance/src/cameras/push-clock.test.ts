import t from 'tap';
import { createPushClock } from './push-clock.ts';

const YEAR = 365.25 * 86_400_000;
const T0 = Date.parse('2026-11-24T12:00:00Z');

t.test('a camera 8 years ahead is known from its first read', async (t) => {
  const clock = createPushClock();
  t.equal(clock.observe(T0 + 8 * YEAR - 300, T0), 8 * YEAR - 300);
});

t.test('a camera 26 years behind: believed once its reads agree', async (t) => {
  const clock = createPushClock();
  const results = [0, 1, 2, 3, 4].map((i) => clock.observe(T0 - 26 * YEAR + i * 10_000 - 400, T0 + i * 10_000));
  t.same(results.slice(0, 4), [null, null, null, null]);
  t.ok(Math.abs((results[4] ?? 0) + 26 * YEAR) < 1_000, 'the fifth read settles it');
});

t.test('a correct camera re-sending its backlog after an outage is not "behind"', async (t) => {
  const clock = createPushClock();
  for (let i = 0; i < 10; i++) clock.observe(T0 + i * 30_000 - 500, T0 + i * 30_000);
  t.ok(Math.abs(clock.current() ?? 99) < 1_000, 'fresh reads: about right');
  // 30 stored reads from the last 3 hours arrive within seconds.
  for (let i = 0; i < 30; i++) clock.observe(T0 - 3 * 3_600_000 + i * 360_000, T0 + 400_000 + i * 100);
  t.ok(Math.abs(clock.current() ?? 99) < 1_000, 'the backlog spreads over hours: the estimate stays');
});

t.test('a clock corrected while running: the new offset, and the old one kept', async (t) => {
  const clock = createPushClock();
  clock.observe(T0 + 8 * YEAR, T0);
  for (let i = 1; i <= 6; i++) clock.observe(T0 + i * 1000 - 300, T0 + i * 1000);
  t.ok(Math.abs(clock.current() ?? 99) < 1_000);
  t.equal(clock.previous(), 8 * YEAR);
});
