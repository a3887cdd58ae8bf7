import t from 'tap';
import {
  clockWarning,
  correctCaptureTime,
  cursorForClock,
  describeOffset,
  nextClockReading,
  parseCameraTime,
  shiftDigits,
  zoneWarning,
} from './camera-clock.ts';

const YEAR = 365.25 * 86_400_000;

t.test('parseCameraTime', async (t) => {
  t.same(parseCameraTime('2034-11-24T10:00:00+01:00'), { localDigits: '20341124100000', epochMs: Date.parse('2034-11-24T09:00:00Z'), utcOffsetMinutes: 60 });
  t.match(parseCameraTime('2026-06-01T12:30:15Z'), { localDigits: '20260601123015', utcOffsetMinutes: 0 });
  t.match(parseCameraTime('2026-06-01T12:30:15-0530'), { utcOffsetMinutes: -330 });
  for (const bad of ['2026-06-01 12:30:15', 'yesterday', '2026-06-01T12:30:15', '']) t.equal(parseCameraTime(bad), undefined, bad);
});

t.test('cursorForClock: rewind only when the cursor is ahead of the camera by over a minute', async (t) => {
  t.same(cursorForClock('202610250259590001', '20261025030010'), { cursor: '202610250259590001', rewound: false }, 'normal');
  t.same(cursorForClock('202610250259590001', '20261025025900'), { cursor: '202610250259590001', rewound: false }, '59 s ahead: jitter');
  t.same(cursorForClock('202610250259590001', '20261025020005'), { cursor: '202610250155050000', rewound: true }, 'summer time ended');
  t.same(cursorForClock('203411241000000001', '20261124100000'), { cursor: '202611240955000000', rewound: true }, 'clock corrected from 8 years ahead');
  t.equal(shiftDigits('20260101000000', -1000), '20251231235959');
});

t.test('correctCaptureTime', async (t) => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  t.same(correctCaptureTime(now - 5_000, 5_000, null, now), { ms: now - 5_000, corrected: false }, 'under 10 s: left alone');
  t.same(correctCaptureTime(now + 90_000, 90_000, null, now), { ms: now, corrected: true });
  t.same(correctCaptureTime(now + 8 * YEAR, 0, 8 * YEAR, now), { ms: now, corrected: true }, 'captured before the clock was corrected, fetched after');
  t.same(correctCaptureTime(now - 26 * YEAR, 0, -26 * YEAR, now), { ms: now, corrected: true }, 'the same, forwards');
  t.same(
    correctCaptureTime(now - 3_600_000, 0, 8 * YEAR, now),
    { ms: now - 3_600_000, corrected: false },
    'an old read is old: the previous offset does not apply',
  );
});

t.test('nextClockReading: a tighter reading refines, a set clock changes, a loose one is ignored', async (t) => {
  const loose = { offsetMs: 93_200, roundTripMs: 6_000 }; // measured on a loaded appliance: up to 3 s off
  t.same(nextClockReading(null, loose), { use: loose, change: 'first' });
  const tight = { offsetMs: 90_100, roundTripMs: 40 };
  t.same(nextClockReading(loose, tight), { use: tight, change: 'refined' }, 'agrees within both uncertainties, shorter trip: taken');
  t.same(nextClockReading(tight, loose), { use: tight, change: 'kept' }, 'a looser reading never replaces a tighter one');
  t.same(nextClockReading(tight, { offsetMs: 92_000, roundTripMs: 50 }), { use: tight, change: 'kept' }, 'under 2 s apart: the same clock');
  const set = { offsetMs: 0, roundTripMs: 60 };
  t.same(nextClockReading(tight, set), { use: set, change: 'changed' }, 'someone set the clock');
  t.same(nextClockReading(tight, { offsetMs: 95_000, roundTripMs: 8_000 }).change, 'kept', '5 s apart, but the reading is 4 s loose: no change');
});

t.test('plain words', async (t) => {
  t.equal(describeOffset(8 * YEAR), '8 years ahead');
  t.equal(describeOffset(-26 * YEAR), '26 years behind');
  t.equal(describeOffset(90_000), '2 minutes ahead');
  t.equal(describeOffset(-45_000), '45 seconds behind');
  t.equal(clockWarning(90_000), null, 'under the 2-minute warning threshold');
  t.match(clockWarning(-26 * YEAR), /clock is 26 years behind/);
  t.equal(zoneWarning(120, 'Europe/Oslo', Date.parse('2026-06-15T10:00:00Z')), null);
  t.equal(
    zoneWarning(60, 'Europe/Oslo', Date.parse('2026-06-15T10:00:00Z')),
    'this camera reports +01:00 but Europe/Oslo is +02:00 on this date: summer time is switched off or wrong on the camera',
  );
  t.match(
    zoneWarning(480, 'Europe/Oslo', Date.parse('2026-01-15T10:00:00Z')),
    /reports \+08:00 but Europe\/Oslo is \+01:00 on this date: the camera is set to another time zone/,
  );
  t.equal(zoneWarning(480, undefined, 0), null, 'no site zone configured: nothing to compare');
});
