import t from 'tap';
import type { UploadDecision } from './batch-trigger.ts';
import { DEFAULT_BATCH_LIMITS, decideUpload, windowMsFor } from './batch-trigger.ts';
import type { PendingStats } from './ports.ts';

const NOW = 1_000_000;
const MB = 1024 * 1024;
const stats = (count: number, bytes: number, ageMs: number | null, cameraIds: string[] = ['cam-1']): PendingStats => ({
  count,
  bytes,
  oldestReceivedMs: ageMs === null ? null : NOW - ageMs,
  cameraIds,
});

t.test('decideUpload: any trigger fires, otherwise wait for the window', async (t) => {
  const cases: [string, PendingStats, UploadDecision][] = [
    ['empty buffer', stats(0, 0, null), { action: 'idle' }],
    ['one fresh item waits out the window', stats(1, 20_000, 0), { action: 'wait', untilMs: NOW + 10_000 }],
    ['49 items, 3 s old: wait the remaining 7 s', stats(49, 4 * MB, 3_000), { action: 'wait', untilMs: NOW + 7_000 }],
    ['50 items: count trigger', stats(50, MB, 0), { action: 'send', reason: 'count' }],
    ['5 MB: bytes trigger', stats(10, 5 * MB, 0), { action: 'send', reason: 'bytes' }],
    ['one item bigger than 5 MB: bytes, not catch-up', stats(1, 6 * MB, 0), { action: 'send', reason: 'bytes' }],
    ['oldest waited exactly the window', stats(1, 100, 10_000), { action: 'send', reason: 'window' }],
    ['51 items after an outage: catch up', stats(51, MB, 0), { action: 'send', reason: 'catch_up' }],
    ['7 MB in 30 items: catch up', stats(30, 7 * MB, 0), { action: 'send', reason: 'catch_up' }],
    ['backlog of 10,000: catch up', stats(10_000, 200 * MB, 3_600_000), { action: 'send', reason: 'catch_up' }],
    // The wall clock stepped back an hour: the oldest row looks like it is from the future.
    ['clock stepped backwards: wait at most one window', stats(3, 100, -3_600_000), { action: 'wait', untilMs: NOW + 10_000 }],
  ];
  for (const [name, input, expected] of cases) {
    t.same(decideUpload({ nowMs: NOW, stats: input, limits: DEFAULT_BATCH_LIMITS, windowMs: 10_000 }), expected, name);
  }
});

t.test('decideUpload honours configured limits', async (t) => {
  const limits = { maxItems: 5, maxBytes: 1000 };
  t.same(decideUpload({ nowMs: NOW, stats: stats(5, 10, 0), limits, windowMs: 5_000 }), { action: 'send', reason: 'count' });
  t.same(decideUpload({ nowMs: NOW, stats: stats(6, 10, 0), limits, windowMs: 5_000 }), { action: 'send', reason: 'catch_up' });
  t.same(decideUpload({ nowMs: NOW, stats: stats(2, 999, 0), limits, windowMs: 5_000 }), { action: 'wait', untilMs: NOW + 5_000 });
});

t.test('windowMsFor: smallest window among cameras with waiting items, clamped to 5-30 s', async (t) => {
  const byCamera: Record<string, number> = { pull: 5, quiet: 30, slow: 45, twitchy: 1 };
  const config = { defaultSeconds: 10, forCamera: (id: string) => byCamera[id] };
  const cases: [string, string[], number][] = [
    ['no cameras: default', [], 10_000],
    ['unknown camera: default', ['other'], 10_000],
    ['one quiet camera', ['quiet'], 30_000],
    ['quiet + pull: the smaller wins', ['quiet', 'pull'], 5_000],
    ['quiet + unknown: default is smaller', ['quiet', 'other'], 10_000],
    ['45 s clamps to 30 s', ['slow'], 30_000],
    ['1 s clamps to 5 s', ['twitchy'], 5_000],
  ];
  for (const [name, ids, expected] of cases) t.equal(windowMsFor(ids, config), expected, name);
  t.equal(windowMsFor(['x'], { defaultSeconds: 20 }), 20_000, 'no per-camera setting');
  t.equal(windowMsFor([], { defaultSeconds: 2 }), 5_000, 'default is clamped too');
});
