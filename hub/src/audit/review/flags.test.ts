/**
 * The audit review's flags (docs/audit-review.md) on crafted histories: each fires at its
 * threshold and not one short of it, and what excuses a lookup (a case number, a hold, a
 * listed plate, a long enough history) does.
 */
import t from 'tap';
import { lookupsByPurpose, weekOf } from './by-purpose.ts';
import { RULES, reviewFlags, usualHours, type Flag, type Lookup, type ReviewContext } from './flags.ts';

let nextId = 1;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-05T00:00:00Z'); // a Monday

function lookup(over: Partial<Omit<Lookup, 'at'>> & { at: number }): Lookup {
  return {
    auditId: String(nextId++),
    userId: 'u1',
    action: 'search.detections',
    plate: null,
    purpose: 'stolen_vehicle',
    caseNumber: null,
    resultCount: 3,
    ...over,
    at: new Date(over.at),
  };
}

const ctx = (over: Partial<ReviewContext> = {}): ReviewContext => ({ listedPlates: new Set(), heldPlates: new Set(), timeZone: 'UTC', ...over });
const kinds = (flags: Flag[], kind: string) => flags.filter((f) => f.kind === kind);

t.test('the same plate again and again, without a case or a hold', async (t) => {
  const listed = ctx({ listedPlates: new Set(['AB123']) });
  const five = Array.from({ length: RULES.repeatCount }, (_, i) => lookup({ at: T0 + 10 * HOUR + i * 5 * DAY, plate: 'AB123' }));
  const flags = kinds(reviewFlags(five, five, listed), 'repeated_plate');
  t.equal(flags.length, 1, 'five lookups of AB123 within 30 days: one flag');
  t.same(
    flags[0]?.auditIds,
    five.map((l) => l.auditId),
    'naming every audit row behind it',
  );
  t.equal(flags[0]?.plate, 'AB123');

  const four = five.slice(0, 4);
  t.equal(kinds(reviewFlags(four, four, listed), 'repeated_plate').length, 0, 'four: none');

  const spread = Array.from({ length: 5 }, (_, i) => lookup({ at: T0 + i * 8 * DAY, plate: 'AB123' }));
  t.equal(kinds(reviewFlags(spread, spread, listed), 'repeated_plate').length, 0, 'five over 32 days: no 30-day window holds five');

  const withCase = five.map((l, i) => (i === 0 ? { ...l, caseNumber: 'CR-2026-001' } : l));
  t.equal(kinds(reviewFlags(withCase, withCase, listed), 'repeated_plate').length, 0, 'one of them with a case number: four left, none');

  t.equal(
    kinds(reviewFlags(five, five, ctx({ listedPlates: new Set(['AB123']), heldPlates: new Set(['AB123']) })), 'repeated_plate').length,
    0,
    'a held plate: none',
  );

  const twoUsers = [...four, lookup({ at: T0 + 20 * DAY, plate: 'AB123', userId: 'u2' })];
  t.equal(kinds(reviewFlags(twoUsers, twoUsers, listed), 'repeated_plate').length, 0, 'counted per user');
});

t.test('lookups far outside the user usual hours', async (t) => {
  // Twenty-five lookups between 09:00 and 16:59 UTC on working days.
  const usual = Array.from({ length: 25 }, (_, i) => lookup({ at: T0 + (i % 5) * DAY + (9 + (i % 8)) * HOUR, plate: 'AB123' }));
  const night = lookup({ at: T0 + 6 * DAY + 3 * HOUR + 20 * 60_000, plate: 'AB123' });
  const late = lookup({ at: T0 + 6 * DAY + 17 * HOUR + 30 * 60_000, plate: 'AB123' });
  const listed = ctx({ listedPlates: new Set(['AB123']) });
  const flags = kinds(reviewFlags([...usual, night, late], [...usual, night, late], listed), 'off_hours');
  t.equal(flags.length, 1, 'one flag for the day');
  t.same(flags[0]?.auditIds, [night.auditId], 'the 03:20 lookup; 17:30 is next to a usual hour');
  t.match(flags[0]?.message, /03h/);

  const short = usual.slice(0, RULES.usualHistoryMin - 2);
  t.equal(kinds(reviewFlags([...short, night], [...short, night], listed), 'off_hours').length, 0, 'under 20 lookups of history: no opinion');
  t.equal(usualHours(short, 'UTC'), undefined);

  // The same instants read in Tokyo (UTC+9): 09:00-16:59 UTC is 18:00-01:59 there and
  // 03:20 UTC is 12:20, outside the usual hours again: the zone moves the hours, not the rule.
  const tokyo = kinds(reviewFlags([...usual, night], [...usual, night], { ...listed, timeZone: 'Asia/Tokyo' }), 'off_hours');
  t.same(
    tokyo.flatMap((f) => f.auditIds),
    [night.auditId],
  );
  t.match(tokyo[0]?.message, /12h/);
});

t.test('bulk exports', async (t) => {
  const big = lookup({ at: T0 + 10 * HOUR, action: 'export.detections', resultCount: RULES.bulkExportRows });
  const small = lookup({ at: T0 + 11 * HOUR, action: 'export.detections', resultCount: RULES.bulkExportRows - 1 });
  const flags = kinds(reviewFlags([big, small], [big, small], ctx()), 'bulk_export');
  t.same(
    flags.map((f) => f.auditIds),
    [[big.auditId]],
    '1,000 detections: flagged; 999: not',
  );

  const many = Array.from({ length: RULES.bulkExportsPerDay }, (_, i) =>
    lookup({ at: T0 + 2 * DAY + (9 + i) * HOUR, action: 'export.detections', resultCount: 10 }),
  );
  const day = kinds(reviewFlags(many, many, ctx()), 'bulk_export');
  t.equal(day.length, 1, 'five exports in a day: one flag');
  t.equal(day[0]?.auditIds.length, RULES.bulkExportsPerDay);
  t.equal(kinds(reviewFlags(many.slice(1), many.slice(1), ctx()), 'bulk_export').length, 0, 'four: none');
});

t.test('plates on no list, without a case number', async (t) => {
  const rows = [
    lookup({ at: T0 + 10 * HOUR, plate: 'ZZ999' }),
    lookup({ at: T0 + 11 * HOUR, plate: 'ZZ999' }),
    lookup({ at: T0 + 12 * HOUR, plate: 'AB123' }),
    lookup({ at: T0 + 13 * HOUR, plate: 'QQ111', caseNumber: 'CR-1' }),
    lookup({ at: T0 + 14 * HOUR, plate: null }),
    lookup({ at: T0 + 15 * HOUR, plate: 'HH222' }),
  ];
  const flags = kinds(reviewFlags(rows, rows, ctx({ listedPlates: new Set(['AB123']), heldPlates: new Set(['HH222']) })), 'plate_on_no_list');
  t.same(
    flags.map((f) => [f.plate, f.auditIds.length]),
    [['ZZ999', 2]],
    'the unlisted plate, once with both rows; the listed one, the one with a case, the held one and the pattern are not flagged',
  );
});

t.test('lookups by purpose per week', async (t) => {
  t.equal(weekOf(new Date('2026-10-11T23:59:00Z')), '2026-10-05', 'a Sunday belongs to the Monday before');
  t.equal(weekOf(new Date('2026-10-12T00:00:00Z')), '2026-10-12');
  const rows = [
    lookup({ at: T0 + HOUR }),
    lookup({ at: T0 + 2 * HOUR }),
    lookup({ at: T0 + 3 * HOUR, purpose: 'missing_person' }),
    lookup({ at: T0 + 8 * DAY, purpose: null }),
    lookup({ at: T0 + HOUR, userId: 'u2' }),
  ];
  t.same(lookupsByPurpose(rows), [
    { userId: 'u1', week: '2026-10-05', purpose: 'missing_person', count: 1 },
    { userId: 'u1', week: '2026-10-05', purpose: 'stolen_vehicle', count: 2 },
    { userId: 'u1', week: '2026-10-12', purpose: 'none', count: 1 },
    { userId: 'u2', week: '2026-10-05', purpose: 'stolen_vehicle', count: 1 },
  ]);
});

t.test('a flag names the plate as people read it, not its OCR-folded key (issue 50 item 6)', async (t) => {
  const five = Array.from({ length: 5 }, (_, i) => lookup({ at: T0 + i * DAY, plate: '5N70P1V', plateAsRead: 'SN70PLV' }));
  const [repeated] = kinds(reviewFlags(five, five, ctx({ listedPlates: new Set(['5N70P1V']) })), 'repeated_plate');
  t.equal(repeated?.plate, 'SN70PLV');
  t.match(repeated?.message, /^SN70PLV looked up 5 times/);
  const [unlisted] = kinds(reviewFlags(five, five, ctx()), 'plate_on_no_list');
  t.match(unlisted?.message, /^SN70PLV is on no watchlist/);
});
