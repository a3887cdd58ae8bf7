import t from 'tap';
import { reserveToken, takeToken } from './gcra.ts';
import { createMemoryRateLimiter } from './memory.ts';

const T0 = Date.parse('2026-01-15T10:00:00Z');

/** An injected clock: tests move time, they never sleep. */
function clock(start = T0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

t.test('takeToken: a burst of `limit`, then one per window/limit (table)', async (t) => {
  const rule = { limit: 5, windowMs: 60_000 };
  // [ms since T0, allowed, remaining, retryAfterSeconds, resetAt ms since T0]
  const table: Array<[number, boolean, number, number, number]> = [
    [0, true, 4, 0, 12_000],
    [0, true, 3, 0, 24_000],
    [0, true, 2, 0, 36_000],
    [0, true, 1, 0, 48_000],
    [0, true, 0, 0, 60_000],
    [0, false, 0, 12, 60_000],
    [11_999, false, 0, 1, 60_000],
    [12_000, true, 0, 0, 72_000],
    [12_000, false, 0, 12, 72_000],
    [72_000 + 24_000, true, 4, 0, 108_000], // quiet since +72 s: full again
  ];
  let tat: number | null = null;
  for (const [at, allowed, remaining, retry, reset] of table) {
    const d = takeToken(tat, T0 + at, rule);
    t.match(d, { allowed, limit: 5, remaining, retryAfterSeconds: retry }, `t+${at} ms`);
    t.equal(d.resetAtMs, T0 + reset, `t+${at} ms: full again at +${reset}`);
    tat = d.nextTatMs;
  }
});

t.test('takeToken: rules of the five call sites', async (t) => {
  const burst = (rule: { limit: number; windowMs: number }) => {
    let tat: number | null = null;
    let n = 0;
    for (;;) {
      const d = takeToken(tat, T0, rule);
      if (!d.allowed) return { n, retry: d.retryAfterSeconds };
      tat = d.nextTatMs;
      n += 1;
    }
  };
  const cases: Array<[string, { limit: number; windowMs: number }, number, number]> = [
    ['hub auth login: 5 per minute', { limit: 5, windowMs: 60_000 }, 5, 12],
    ['hub collectors enrollment: 10 per minute', { limit: 10, windowMs: 60_000 }, 10, 6],
    ['setup page claim: 5 per minute', { limit: 5, windowMs: 60_000 }, 5, 12],
    ['NVR simulator thumbnails: 10 per second', { limit: 10, windowMs: 1_000 }, 10, 1],
    ['3 per 10 s (interval not a whole number of ms)', { limit: 3, windowMs: 10_000 }, 3, 4],
  ];
  for (const [name, rule, n, retry] of cases) t.same(burst(rule), { n, retry }, name);
});

t.test('reserveToken: queued callers get evenly spaced slots', async (t) => {
  const rule = { limit: 2, windowMs: 200 }; // 10 per second, burst 2
  let tat: number | null = null;
  const waits: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = reserveToken(tat, T0, rule);
    waits.push(r.waitMs);
    tat = r.nextTatMs;
  }
  t.same(waits, [0, 0, 100, 200, 300], 'burst of 2, then one per 100 ms');
  t.equal(reserveToken(tat, T0 + 1_000, rule).waitMs, 0, 'after a quiet second the burst is back');
});

t.test('memory limiter: keys are independent; time moves through the injected clock', async (t) => {
  const c = clock();
  const limiter = createMemoryRateLimiter({ limit: 2, windowMs: 60_000 }, c.now);
  t.same([limiter.take('a').allowed, limiter.take('a').allowed, limiter.take('a').allowed], [true, true, false]);
  t.equal(limiter.take('b').allowed, true, 'another address has its own bucket');
  c.advance(29_999);
  t.equal(limiter.take('a').allowed, false, 'not yet');
  c.advance(1);
  t.match(limiter.take('a'), { allowed: true, remaining: 0 }, 'one token back after window/limit');
});

t.test('memory limiter: bounded memory; full buckets are forgotten first', async (t) => {
  const c = clock();
  const limiter = createMemoryRateLimiter({ limit: 1, windowMs: 1_000, maxKeys: 3 }, c.now);
  limiter.take('a');
  c.advance(2_000); // a is full again: forgettable
  limiter.take('b');
  limiter.take('c');
  limiter.take('d');
  t.equal(limiter.size(), 3);
  t.equal(limiter.take('b').allowed, false, 'b (empty bucket) was kept');
  t.equal(limiter.take('c').allowed, false, 'c kept');
  for (const key of ['e', 'f', 'g', 'h']) limiter.take(key);
  t.equal(limiter.size(), 3, 'a flood of new keys never grows past maxKeys');
});

t.test('memory limiter reserve: one queue per key', async (t) => {
  const c = clock();
  const limiter = createMemoryRateLimiter({ limit: 1, windowMs: 100 }, c.now);
  t.same([limiter.reserve('nvr'), limiter.reserve('nvr'), limiter.reserve('nvr')], [0, 100, 200]);
  t.equal(limiter.reserve('other'), 0);
  c.advance(300);
  t.equal(limiter.reserve('nvr'), 0, 'caught up');
});

t.test('memory limiter keep-limited: a limiting bucket is never forgotten to make room', async (t) => {
  const c = clock();
  const limiter = createMemoryRateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 2, overflow: 'keep-limited' }, c.now);
  limiter.take('attacker');
  limiter.take('b');
  limiter.take('c');
  t.equal(limiter.take('attacker').allowed, false, 'still limited after new keys arrived');
  t.equal(limiter.size(), 3, 'the table grew instead');
  c.advance(60_000);
  limiter.take('d');
  t.equal(limiter.size(), 1, 'full buckets are still forgotten');
});
