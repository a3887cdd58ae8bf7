import t from 'tap';
import { heartbeatShare } from './heartbeat-share.ts';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 28, 12, 30);
const windowStart = Date.UTC(2026, 10, 28, 12) - 167 * HOUR;
const base = { windowStart, now, intervalSeconds: 60, firstHour: Date.UTC(2026, 10, 28, 12) };

t.test('heartbeats received: owed only since the collector was claimed', async (t) => {
  const cases: [string, Parameters<typeof heartbeatShare>[0], { expected: number; percent: number }][] = [
    ['a fresh demo, claimed 10 minutes ago, every heartbeat in', { ...base, received: 11, claimedAt: now - 600_000 }, { expected: 11, percent: 100 }],
    ['claimed 10 minutes ago, half of them lost', { ...base, received: 5, claimedAt: now - 600_000 }, { expected: 11, percent: 45 }],
    ['claimed this very moment', { ...base, received: 1, claimedAt: now }, { expected: 1, percent: 100 }],
    ['claimed weeks ago: the whole window is owed', { ...base, received: 5040, claimedAt: windowStart - 30 * 24 * HOUR }, { expected: 10_051, percent: 50 }],
    ['silent since its claim a day ago', { ...base, received: 0, claimedAt: now - 24 * HOUR }, { expected: 1441, percent: 0 }],
    ['no claim time: from the first hour heard', { ...base, received: 31, claimedAt: null }, { expected: 31, percent: 100 }],
    ['a pushed 20 s interval', { ...base, intervalSeconds: 20, received: 31, claimedAt: now - 600_000 }, { expected: 31, percent: 100 }],
    ['an extra one after a restart never reads above 100 %', { ...base, received: 13, claimedAt: now - 600_000 }, { expected: 11, percent: 100 }],
  ];
  for (const [name, input, expected] of cases) t.same(heartbeatShare(input), expected, name);
});
