import t from 'tap';
import { epochMsToDate, isValidTimeZone, parseCameraTime, toUtcIso, wallClockToEpoch, zoneOffsetMs } from './time.ts';

const iso = (text: string, zone?: string): string | undefined => {
  const date = parseCameraTime(text, zone);
  return date ? toUtcIso(date) : undefined;
};

t.test('explicit offsets win over the configured zone', async (t) => {
  const table: Array<[string, string | undefined, string, string]> = [
    ['2023-08-11T13:49:00+01:00', 'America/New_York', '2023-08-11T12:49:00.000Z', 'vendor_a push dateTime'],
    ['2023-08-11T13:49:00+01:00', undefined, '2023-08-11T12:49:00.000Z', 'no zone configured'],
    ['2023-08-11T13:49:00Z', 'Europe/Berlin', '2023-08-11T13:49:00.000Z', 'Z ignores the zone'],
    ['2023-08-11T13:49:00z', 'Europe/Berlin', '2023-08-11T13:49:00.000Z', 'lowercase z'],
    ['2023-08-11T17:48:03.847+07:00', 'Europe/Berlin', '2023-08-11T10:48:03.847Z', 'milliseconds with offset'],
    ['2023-08-11T08:00:00-05:00', 'Europe/Berlin', '2023-08-11T13:00:00.000Z', 'negative offset'],
    ['2023-08-11T08:00:00-0530', undefined, '2023-08-11T13:30:00.000Z', 'offset without colon'],
    ['2023-08-11T13:49:00 +01:00', undefined, '2023-08-11T12:49:00.000Z', 'space before offset'],
    ['2023-08-11T13:49:00+14:00', undefined, '2023-08-10T23:49:00.000Z', '+14:00 is the largest real offset'],
    ['20201130T114200+0100', 'Asia/Tokyo', '2020-11-30T10:42:00.000Z', 'compact vendor_a captureTime'],
    ['20340109T094130+0400', undefined, '2034-01-09T05:41:30.000Z', 'compact, wrong camera year kept'],
  ];
  for (const [text, zone, expected, why] of table) t.equal(iso(text, zone), expected, `${text}: ${why}`);
});

t.test('fractions of a second', async (t) => {
  t.equal(iso('2023-08-11T13:49:00.8Z'), '2023-08-11T13:49:00.800Z', 'one digit is tenths');
  t.equal(iso('2023-08-11T13:49:00.12Z'), '2023-08-11T13:49:00.120Z');
  t.equal(iso('2023-08-11T13:49:00.123456Z'), '2023-08-11T13:49:00.123Z', 'microseconds truncated');
  t.equal(iso('2023-08-11T13:49:00,5Z'), '2023-08-11T13:49:00.500Z', 'comma decimal sign');
});

t.test('no offset: the camera zone, else UTC', async (t) => {
  const table: Array<[string, string | undefined, string, string]> = [
    ['2023-08-11T10:00:00', 'Europe/Berlin', '2023-08-11T08:00:00.000Z', 'summer time +02:00'],
    ['2030-01-15T10:00:00', 'Europe/Berlin', '2030-01-15T09:00:00.000Z', 'winter time +01:00'],
    ['2023-08-11T10:00:00', 'America/New_York', '2023-08-11T14:00:00.000Z', 'EDT -04:00'],
    ['2030-01-15T10:00:00', 'America/New_York', '2030-01-15T15:00:00.000Z', 'EST -05:00'],
    ['2023-08-11 10:00:00', 'Asia/Kolkata', '2023-08-11T04:30:00.000Z', 'space separator, half-hour zone'],
    ['2023-08-11T10:00:00', undefined, '2023-08-11T10:00:00.000Z', 'no zone: UTC'],
    ['2023-08-11T10:00:00', '', '2023-08-11T10:00:00.000Z', 'empty zone: UTC'],
    ['2023-08-11T10:00:00', 'Mars/Olympus_Mons', '2023-08-11T10:00:00.000Z', 'unknown zone: UTC'],
    ['20200424T1616270000', 'Europe/Berlin', '2020-04-24T14:16:27.000Z', '4-digit suffix is not an offset'],
    ['20200424T1616270000', undefined, '2020-04-24T16:16:27.000Z', 'same, no zone'],
    ['2023-08-11T10:00:00+2500', 'Europe/Berlin', '2023-08-11T08:00:00.000Z', 'out-of-range offset counts as none'],
    ['2023-08-11T10:00:00+01:60', 'Europe/Berlin', '2023-08-11T08:00:00.000Z', 'minutes 60 is not an offset'],
    ['2023-08-11T10:00:00 CEST', 'America/New_York', '2023-08-11T14:00:00.000Z', 'zone abbreviation ignored'],
    ['20230811134900555', 'Europe/Berlin', '2023-08-11T11:49:00.555Z', 'absTime YYYYMMDDhhmmssmmm'],
    ['20230811134900', 'Europe/Berlin', '2023-08-11T11:49:00.000Z', 'YYYYMMDDhhmmss'],
    ['20230811134900555', undefined, '2023-08-11T13:49:00.555Z', 'absTime without zone'],
    [' 2023-08-11T10:00:00 ', undefined, '2023-08-11T10:00:00.000Z', 'surrounding whitespace'],
  ];
  for (const [text, zone, expected, why] of table) t.equal(iso(text, zone), expected, `${text}: ${why}`);
});

t.test('DST: spring gap moves forward, autumn overlap takes the earlier instant', async (t) => {
  const table: Array<[string, string, string, string]> = [
    // Europe/Berlin 2030-03-31: 02:00 CET jumps to 03:00 CEST (01:00Z).
    ['2030-03-31T01:59:59', 'Europe/Berlin', '2030-03-31T00:59:59.000Z', 'last second of CET'],
    ['2030-03-31T02:30:00', 'Europe/Berlin', '2030-03-31T01:30:00.000Z', 'gap: read as 03:30 CEST'],
    ['2030-03-31T03:00:00', 'Europe/Berlin', '2030-03-31T01:00:00.000Z', 'first CEST wall clock'],
    ['2030-03-31T03:30:00', 'Europe/Berlin', '2030-03-31T01:30:00.000Z', 'gap reading equals 03:30'],
    // Europe/Berlin 2030-10-27: 03:00 CEST falls back to 02:00 CET (01:00Z); 02:xx happens twice.
    ['2030-10-27T01:59:59', 'Europe/Berlin', '2030-10-26T23:59:59.000Z', 'before the overlap'],
    ['2030-10-27T02:30:00', 'Europe/Berlin', '2030-10-27T00:30:00.000Z', 'overlap: earlier (CEST) instant'],
    ['2030-10-27T03:00:00', 'Europe/Berlin', '2030-10-27T02:00:00.000Z', 'after the overlap, CET'],
    ['20301027023000000', 'Europe/Berlin', '2030-10-27T00:30:00.000Z', 'absTime in the overlap'],
    // America/New_York 2030-03-10 02:00 EST -> 03:00 EDT; 2030-11-03 02:00 EDT -> 01:00 EST.
    ['2030-03-10T01:59:59', 'America/New_York', '2030-03-10T06:59:59.000Z', 'last EST second'],
    ['2030-03-10T02:30:00', 'America/New_York', '2030-03-10T07:30:00.000Z', 'gap: read as 03:30 EDT'],
    ['2030-03-10T03:00:00', 'America/New_York', '2030-03-10T07:00:00.000Z', 'first EDT wall clock'],
    ['2030-11-03T01:30:00', 'America/New_York', '2030-11-03T05:30:00.000Z', 'overlap: earlier (EDT) instant'],
    ['2030-11-03T02:00:00', 'America/New_York', '2030-11-03T07:00:00.000Z', 'after the overlap, EST'],
    ['2030-11-03T00:59:59.999', 'America/New_York', '2030-11-03T04:59:59.999Z', 'milliseconds before overlap'],
  ];
  for (const [text, zone, expected, why] of table) t.equal(iso(text, zone), expected, `${text} ${zone}: ${why}`);
});

t.test('invalid dates are undefined, never rolled over', async (t) => {
  const invalid = [
    '2023-02-30T10:00:00Z',
    '2023-02-29T10:00:00',
    '2023-13-01T00:00:00Z',
    '2023-00-10T00:00:00Z',
    '2023-04-31T00:00:00',
    '2023-08-11T24:00:00Z',
    '2023-08-11T23:60:00Z',
    '2023-08-11T23:59:60Z',
    '20230230134900555',
    '20231301134900',
    '20200431T1616270000',
    '20230811134900+',
    '202004241616278800',
    '2023-08-11',
    '10:00:00',
    '',
    '   ',
    'yesterday',
    '2023-8-11T10:00:00Z',
  ];
  for (const text of invalid) t.equal(parseCameraTime(text, 'Europe/Berlin'), undefined, JSON.stringify(text));
  t.equal(iso('2024-02-29T12:00:00Z'), '2024-02-29T12:00:00.000Z', 'a real leap day is fine');
});

t.test('zone helpers', async (t) => {
  t.ok(isValidTimeZone('Europe/Berlin'));
  t.ok(isValidTimeZone('UTC'));
  t.notOk(isValidTimeZone('Europe/Atlantis'));
  t.equal(zoneOffsetMs('Europe/Berlin', Date.UTC(2030, 0, 1)), 3_600_000);
  t.equal(zoneOffsetMs('Europe/Berlin', Date.UTC(2030, 6, 1, 12, 0, 0, 999)), 7_200_000, 'ms do not leak');
  t.equal(zoneOffsetMs('America/New_York', Date.UTC(2030, 0, 1)), -18_000_000);
  t.equal(zoneOffsetMs('Asia/Kathmandu', Date.UTC(2030, 0, 1)), 20_700_000, '+05:45');
  const wall = { year: 2030, month: 10, day: 27, hour: 2, minute: 30, second: 0, millisecond: 250 };
  t.equal(wallClockToEpoch(wall, 'Europe/Berlin'), Date.UTC(2030, 9, 27, 0, 30, 0, 250));
  t.equal(wallClockToEpoch({ ...wall, month: 3, day: 31 }, 'Europe/Berlin'), Date.UTC(2030, 2, 31, 1, 30, 0, 250));
  t.equal(wallClockToEpoch({ ...wall, month: 6, day: 1 }, 'UTC'), Date.UTC(2030, 5, 1, 2, 30, 0, 250));
});

t.test('epoch milliseconds (vendor_b)', async (t) => {
  t.equal(epochMsToDate(1900000004000)?.toISOString(), '2030-03-17T17:46:44.000Z');
  t.equal(epochMsToDate('1900000004000')?.toISOString(), '2030-03-17T17:46:44.000Z', 'digit string');
  t.equal(epochMsToDate(8.64e15)?.toISOString(), '+275760-09-13T00:00:00.000Z', 'largest Date');
  for (const bad of [0, -1, 8.64e15 + 1, Number.NaN, Number.POSITIVE_INFINITY, '12a', '1.5', '', null, undefined, {}]) {
    t.equal(epochMsToDate(bad), undefined, String(bad));
  }
});

t.test('wire form is ISO 8601 UTC with milliseconds', async (t) => {
  t.equal(toUtcIso(new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 6))), '2030-01-02T03:04:05.006Z');
});
