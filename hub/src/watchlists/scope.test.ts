import t from 'tap';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import type { StoredScope, WatchlistMode } from '../db/schema/watchlists.ts';
import { buildWatchlistIndex, matchRead, type IndexedEntry } from './match.ts';
import { compileScope, describeDays, describeScope, inWindow, localWallTime, readInScope, type ListRule, type ReadContext } from './scope.ts';

const GATE_A = '00000000-0000-4000-8000-00000000000a';
const GATE_B = '00000000-0000-4000-8000-00000000000b';
const SITE = '00000000-0000-4000-8000-0000000000c1';
const names = {
  sites: new Map([[SITE, 'North car park']]),
  collectors: new Map([
    [GATE_A, 'Gate A'],
    [GATE_B, 'Gate B'],
  ]),
};

function read(at: string, over: Partial<ReadContext> = {}): ReadContext {
  return { collectorId: GATE_B, cameraId: 'cam1', siteId: null, direction: 'entering', capturedAt: new Date(at), ...over };
}

const nightsParis: StoredScope = {
  collectors: [GATE_B],
  direction: 'entering',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  hours: { from: '22:00', to: '06:00' },
  time_zone: 'Europe/Paris',
};

t.test('local wall time follows the zone through both daylight-saving changes (Intl)', async (t) => {
  // Summer time begins in Paris on Sunday 29 March 2026 at 01:00 UTC (02:00 -> 03:00 local).
  t.same(localWallTime(new Date('2026-03-29T00:30:00Z'), 'Europe/Paris'), { day: 6, minute: 90 }, 'before: 01:30 CET');
  t.same(localWallTime(new Date('2026-03-29T01:30:00Z'), 'Europe/Paris'), { day: 6, minute: 210 }, 'after: 03:30 CEST, 02:xx never happens');
  // Winter time returns on Sunday 25 October 2026 at 01:00 UTC (03:00 -> 02:00 local): 02:30 happens twice.
  t.same(localWallTime(new Date('2026-10-25T00:30:00Z'), 'Europe/Paris'), { day: 6, minute: 150 }, 'first 02:30 (CEST)');
  t.same(localWallTime(new Date('2026-10-25T01:30:00Z'), 'Europe/Paris'), { day: 6, minute: 150 }, 'second 02:30 (CET)');
  t.same(localWallTime(new Date('2026-06-01T12:00:00Z'), 'UTC'), { day: 0, minute: 720 }, 'Monday noon UTC');
});

t.test('a window crossing midnight belongs to the day it starts', async (t) => {
  const time = compileScope({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: { from: '22:00', to: '06:00' }, time_zone: 'UTC' })?.time;
  if (!time) throw new Error('no time compiled');
  const table: Array<[number, string, boolean, string]> = [
    [0, '22:00', true, 'Monday 22:00: opens'],
    [0, '21:59', false, 'Monday 21:59: not yet'],
    [1, '05:59', true, 'Tuesday 05:59: Monday night still'],
    [1, '06:00', false, 'Tuesday 06:00: closed'],
    [5, '05:00', true, 'Saturday 05:00: Friday night'],
    [5, '22:30', false, 'Saturday 22:30: not a listed day'],
    [0, '05:00', false, 'Monday 05:00: Sunday night is not listed'],
    [2, '12:00', false, 'Wednesday noon'],
  ];
  for (const [day, hhmm, want, why] of table) {
    const [h, m] = hhmm.split(':').map(Number);
    t.equal(inWindow(time, day, (h ?? 0) * 60 + (m ?? 0)), want, why);
  }
  const day = compileScope({ hours: { from: '08:00', to: '18:00' }, time_zone: 'UTC' })?.time;
  if (!day) throw new Error('no time compiled');
  t.ok(inWindow(day, 3, 8 * 60), '08:00 in a day window');
  t.notOk(inWindow(day, 3, 18 * 60), '18:00 is the end, excluded');
  const whole = compileScope({ days: ['sat'], hours: { from: '00:00', to: '00:00' }, time_zone: 'UTC' })?.time;
  if (!whole) throw new Error('no time compiled');
  t.ok(inWindow(whole, 5, 0) && inWindow(whole, 5, 1439), 'from == to: the whole day');
  t.notOk(inWindow(whole, 6, 0), 'but only on its days');
});

t.test('daylight saving: spring forward (Europe/Paris, 29 March 2026)', async (t) => {
  const scope = compileScope({ hours: { from: '22:00', to: '06:00' }, time_zone: 'Europe/Paris' });
  if (!scope) throw new Error('no scope');
  // 04:30 UTC is 06:30 summer time: outside. A fixed winter offset (+1) would say 05:30, inside.
  t.notOk(readInScope(scope, read('2026-03-29T04:30:00Z')), '06:30 CEST is after the window');
  // 03:30 UTC is 05:30 summer time: inside. A fixed offset of +1 says 04:30, inside too; a fixed +0 would also.
  t.ok(readInScope(scope, read('2026-03-29T03:30:00Z')), '05:30 CEST is inside');
  t.ok(readInScope(scope, read('2026-03-28T21:00:00Z')), 'Saturday 22:00 CET, the night before: opens');
  t.notOk(readInScope(scope, read('2026-03-28T20:59:00Z')), 'Saturday 21:59 CET: not yet');
});

t.test('daylight saving: fall back (Europe/Paris, 25 October 2026)', async (t) => {
  const scope = compileScope({ hours: { from: '22:00', to: '06:00' }, time_zone: 'Europe/Paris' });
  if (!scope) throw new Error('no scope');
  // 04:30 UTC is 05:30 winter time: inside. A fixed summer offset (+2) would say 06:30, outside.
  t.ok(readInScope(scope, read('2026-10-25T04:30:00Z')), '05:30 CET is inside');
  t.notOk(readInScope(scope, read('2026-10-25T05:00:00Z')), '06:00 CET closes');
  // The night before is still summer time: 20:00 UTC is 22:00 CEST.
  t.ok(readInScope(scope, read('2026-10-24T20:00:00Z')), 'Saturday 22:00 CEST opens');
  t.notOk(readInScope(scope, read('2026-10-24T19:59:00Z')), 'Saturday 21:59 CEST: not yet');
});

t.test('place and direction', async (t) => {
  const scope = compileScope(nightsParis);
  if (!scope) throw new Error('no scope');
  const night = '2026-06-02T23:30:00Z'; // Wednesday 01:30 CEST: Tuesday night
  t.ok(readInScope(scope, read(night)), 'Gate B, entering, at night');
  t.notOk(readInScope(scope, read(night, { collectorId: GATE_A })), 'Gate A is elsewhere');
  t.notOk(readInScope(scope, read(night, { direction: 'exiting' })), 'exiting');
  t.notOk(readInScope(scope, read(night, { direction: 'unknown' })), 'unknown direction is not entering');
  t.notOk(readInScope(scope, read('2026-06-02T10:00:00Z')), 'noon');
  t.notOk(readInScope(scope, undefined), 'a read we know nothing of is outside');
  const bySite = compileScope({ sites: [SITE], cameras: [{ collector_id: GATE_A, camera_id: 'lane2' }] });
  if (!bySite) throw new Error('no scope');
  t.ok(
    readInScope(bySite, read(night, { collectorId: GATE_A, siteId: SITE, direction: 'unknown' })),
    'a site means all its collectors; either way takes unknown',
  );
  t.ok(readInScope(bySite, read(night, { collectorId: GATE_A, cameraId: 'lane2' })), 'a named camera');
  t.notOk(readInScope(bySite, read(night, { collectorId: GATE_A, cameraId: 'lane1' })), 'another camera of the same collector');
  t.equal(
    compileScope({ direction: 'either', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] }),
    null,
    'a scope that narrows nothing compiles to nothing',
  );
});

t.test('the scope in words', async (t) => {
  t.equal(describeScope('allow_list', nightsParis, names), 'allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris');
  t.equal(describeScope('listed', null, names), 'listed, anywhere, either direction, always');
  t.equal(
    describeScope('listed', { sites: [SITE], cameras: [{ collector_id: GATE_A, camera_id: 'lane2' }], days: ['sat', 'sun'], time_zone: 'UTC' }, names, [
      'Staff',
    ]),
    'listed, North car park or camera lane2 on Gate A, either direction, Sat, Sun UTC, ignoring Staff',
  );
  t.equal(describeDays(['mon', 'wed', 'thu', 'fri']), 'Mon, Wed-Fri');
  t.equal(describeDays(['mon', 'tue']), 'Mon, Tue');
});

let n = 0;
function entry(watchlistId: string, plate: string, rule?: ListRule, forgiveOneMisread = false): IndexedEntry {
  n += 1;
  return {
    entryId: `e${n}`,
    watchlistId,
    watchlistName: watchlistId,
    priority: 'high',
    ocrTolerant: false,
    forgiveOneMisread,
    plateNumber: plate,
    plateNormalized: ocrNormalize(plate),
    notes: null,
    addedBy: null,
    addedAt: new Date('2026-01-01T00:00:00Z'),
    ...(rule ? { rule } : {}),
  };
}
function rule(watchlistId: string, mode: WatchlistMode, scope: StoredScope | null, ignoreListIds: string[] = []): ListRule {
  return { watchlistId, mode, scope: compileScope(scope), ignoreListIds, words: describeScope(mode, scope, names) };
}

t.test('the matcher applies each list its rule', async (t) => {
  const residents = rule('residents', 'allow_list', nightsParis, ['staff']);
  const stolen = rule('stolen', 'listed', { collectors: [GATE_B] }, ['staff']);
  const head = { ...entry('residents', 'X', residents), entryId: '', plateNumber: '', plateNormalized: '' };
  const index = buildWatchlistIndex(
    [
      entry('residents', 'RES1DNT', residents, true),
      entry('stolen', 'ST0LEN1', stolen),
      entry('stolen', 'STAFF1', stolen),
      entry('plain', 'STAFF1'),
      entry('plain', 'ST0LEN1'),
    ],
    { allowLists: [head], ignored: [{ plateNormalized: ocrNormalize('STAFF1'), ignoreListId: 'staff', expiresAt: null }] },
  );
  t.ok(index.hasRules);
  const night = '2026-06-02T23:30:00Z';
  const lists = (plate: string, r: ReadContext | undefined) =>
    matchRead(index, ocrNormalize(plate), undefined, r).map((m) => `${m.entry.watchlistId}:${m.kind}`);
  t.same(lists('UNKN0WN', read(night)), ['residents:not_listed'], 'an unknown plate at night at Gate B: the allow-list alerts');
  t.same(lists('UNKN0WN', read(night, { collectorId: GATE_A })), [], 'at Gate A: nothing');
  t.same(lists('UNKN0WN', read('2026-06-02T10:00:00Z')), [], 'at noon: nothing');
  t.same(lists('RES1DNT', read(night)), [], 'a listed resident: nothing');
  t.same(lists('RES1DNX', read(night)), [], 'a resident one misread away, on a list that forgives one: still a resident');
  t.same(lists('STAFF1', read(night)), ['plain:exact'], 'on the staff ignore list: never on lists it is attached to, still on the plain list');
  t.same(
    lists('ST0LEN1', read(night)),
    ['plain:exact', 'residents:not_listed', 'stolen:exact'],
    'a stolen car at Gate B at night: both lists and the allow-list',
  );
  t.same(lists('ST0LEN1', read(night, { collectorId: GATE_A })), ['plain:exact'], 'the scoped list stays quiet at Gate A');
  const alert = matchRead(index, 'UNKN0WN', undefined, read(night))[0];
  t.equal(alert?.rule?.words, 'allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris', 'the alert carries the words');
  const plain = buildWatchlistIndex([entry('plain', 'AB12CDE')]);
  t.notOk(plain.hasRules, 'lists without rules: the matcher does nothing more than before');
  t.same(
    matchRead(plain, ocrNormalize('AB12CDE'), undefined, undefined).map((m) => m.kind),
    ['exact'],
    'and needs no read context',
  );
});
