import t from 'tap';
import { afterTimeBody, initialCursor, isLaterCursor, localDigits } from './vendor-a-cursor.ts';

t.test('local digits follow the camera zone, DST included', async (t) => {
  const table: Array<[string, string | undefined, string]> = [
    ['2030-01-02T02:04:05Z', 'Europe/Paris', '20300102030405'],
    ['2030-07-02T02:04:05Z', 'Europe/Paris', '20300702040405'],
    ['2030-01-01T03:00:00Z', 'America/New_York', '20291231220000'],
    ['2030-01-02T02:04:05Z', undefined, '20300102020405'],
  ];
  for (const [iso, zone, digits] of table) t.equal(localDigits(Date.parse(iso), zone), digits, `${iso} ${zone}`);
});

t.test('first cursor: now minus the backlog, picName-shaped; 14 h earlier without a zone', async (t) => {
  const now = Date.parse('2030-01-02T12:00:00Z');
  t.equal(initialCursor(now, 10 * 60_000, 'Europe/Paris'), '203001021250000000');
  t.equal(initialCursor(now, 0, undefined), '203001012200000000');
});

t.test('cursor comparison by digits, beyond 2^53', async (t) => {
  t.ok(isLaterCursor('203001020304050101', '203001020304050100'));
  t.notOk(isLaterCursor('203001020304050100', '203001020304050100'));
  t.ok(isLaterCursor('2030010203040501000000001', '203001020304050100'), 'a 25-digit picName is later');
  t.notOk(isLaterCursor('abc', '1'));
  t.equal(afterTimeBody('1'), '<?xml version="1.0" encoding="UTF-8"?><AfterTime><picTime>1</picTime></AfterTime>');
});
