import t from 'tap';
import { inQuietHours } from './quiet-hours.ts';
import { aggregatedText, MESSAGE_LIMIT, singleAlertText, type AlertLine } from './message-text.ts';
import { deliveryRetry, pauseAfter429 } from './retry.ts';
import { createSendLimits } from './send-limits.ts';

t.test('quiet hours: in the preference zone, across midnight, equal ends mean none', async (t) => {
  const at = new Date('2026-07-01T21:30:00Z'); // 23:30 in Berlin (summer time), 07:30 in Brisbane
  t.ok(inQuietHours(at, { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' }), '23:30 local is inside 22:00-07:00');
  t.notOk(inQuietHours(at, { start: '22:00', end: '07:00', timeZone: 'UTC' }), '21:30 UTC is not');
  t.notOk(inQuietHours(at, { start: '22:00', end: '07:00', timeZone: 'Australia/Brisbane' }), '07:30 is past the end');
  t.ok(inQuietHours(new Date('2026-07-01T20:59:59Z'), { start: '22:00', end: '23:00', timeZone: 'Europe/Berlin' }), 'start inclusive');
  t.notOk(inQuietHours(new Date('2026-07-01T21:00:00Z'), { start: '22:00', end: '23:00', timeZone: 'Europe/Berlin' }), 'end exclusive');
  t.notOk(inQuietHours(at, { start: '08:00', end: '08:00', timeZone: 'UTC' }));
  t.notOk(inQuietHours(at, { start: null, end: null, timeZone: 'UTC' }));
  // Winter: Berlin is UTC+1, so the same UTC instant is an hour earlier locally.
  t.notOk(inQuietHours(new Date('2026-01-15T20:30:00Z'), { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' }), '21:30 local in winter');
});

const line = (i: number, extra: Partial<AlertLine> = {}): AlertLine => ({
  alertId: String(i),
  detectionId: String(100 + i),
  plate: `AB${i}CD`,
  watchlistName: 'Stolen',
  priority: 'high',
  capturedAt: new Date('2026-11-25T06:00:00Z'),
  confidence: 0.912,
  siteName: 'North gate',
  cameraName: 'Lane 1',
  uncertain: false,
  unverified: false,
  ...extra,
});

t.test('message words', async (t) => {
  const text = singleAlertText(line(1), 'Europe/Berlin', 'https://hub.test/');
  t.match(text, /AB1CD on Stolen \(high\)/);
  t.match(text, /07:00:00/, 'the time in the user zone');
  t.match(text, /confidence 91%/);
  t.match(text, /^https:\/\/hub\.test\/detections\/101$/m);
  t.notMatch(text, /repeat/);
  t.match(singleAlertText(line(1, { uncertain: true }), 'UTC', 'https://hub.test'), /Possibly a repeat/);
  t.notMatch(text, /UNVERIFIED|verified/, 'a confirmed alert, or one on a list without verification, carries no label');
  const unverified = singleAlertText(line(1, { unverified: true }), 'UTC', 'https://hub.test');
  t.match(unverified, /^🚨 UNVERIFIED · AB1CD on Stolen \(high\)$/m, 'an unverified hit says so before the plate');
  t.match(unverified, /Not yet verified: compare the crop/);
  t.match(
    aggregatedText([line(1, { unverified: true }), line(2)], 'UTC', 'https://hub.test').text,
    /AB1CD on Stolen \(high\) \(unverified\)\n[\s\S]*AB2CD on Stolen \(high\)\n/,
  );
  t.ok(singleAlertText(line(1, { watchlistName: 'x'.repeat(3000) }), 'UTC', 'https://hub.test').length <= 1024, 'a caption stays under 1,024');
  const twenty = aggregatedText(
    Array.from({ length: 20 }, (_, i) => line(i)),
    'UTC',
    'https://hub.test',
  );
  t.equal(twenty.included, 20, 'twenty typical alerts fit in one message');
  t.match(twenty.text, /^🚨 20 alerts\n\nAB0CD on Stolen \(high\)\n/);
  const many = aggregatedText(
    Array.from({ length: 200 }, (_, i) => line(i)),
    'UTC',
    'https://hub.test',
  );
  t.ok(many.text.length <= MESSAGE_LIMIT, 'an aggregate stays under 4,096');
  t.ok(many.included > 20 && many.included < 200, `${many.included} of 200 fit; the rest wait for the next message`);
  t.match(many.text, new RegExp(`^🚨 ${many.included} alerts \\(more follow\\)`));
  t.match(many.text, /\/detections\/\d+$/, 'the header\'s "(more follow)" never cuts the last link');
  const unverifiedMany = aggregatedText(
    Array.from({ length: 200 }, (_, i) => line(i, { unverified: true })),
    'UTC',
    'https://hub.test',
  );
  t.ok(unverifiedMany.text.length <= MESSAGE_LIMIT && /\/detections\/\d+$/.test(unverifiedMany.text), 'nor with longer blocks');
  t.equal((many.text.match(/\/detections\//g) ?? []).length, many.included, 'every included alert has its own block');
  const huge = aggregatedText([line(1, { watchlistName: 'w'.repeat(5000) }), line(2)], 'UTC', 'https://hub.test');
  t.equal(huge.included, 2, 'long names are cut, not the alerts');
});

t.test('retry schedule and 429 pause', async (t) => {
  const now = new Date(0);
  t.same(
    [1, 2, 3].map((n) => {
      const r = deliveryRetry(n, now);
      return r.status === 'pending' ? r.nextRetryAt.getTime() : r.status;
    }),
    [1000, 5000, 30000],
  );
  t.same(deliveryRetry(4, now), { status: 'failed' });
  t.same([pauseAfter429(3, 1), pauseAfter429(3, 2), pauseAfter429(undefined, 1), pauseAfter429(500, 3)], [3000, 6000, 1000, 600_000]);
});

t.test('send limits: 30 at once across chats, then one a second; groups 20 a minute', async (t) => {
  const limits = createSendLimits();
  const waits = Array.from({ length: 32 }, (_, i) => limits.reserve(String(i), 0));
  t.same(waits.slice(0, 30), Array(30).fill(0), 'a burst of 30');
  t.same(waits.slice(30), [1000, 2000], 'then one a second');
  const groups = createSendLimits({ across: { limit: 1000, windowMs: 1000 } });
  const g = Array.from({ length: 21 }, () => groups.reserve('-100', 0));
  t.equal(g[19], 0);
  t.equal(g[20], 3000, 'the 21st message to a group waits for a token (20 a minute)');
});
