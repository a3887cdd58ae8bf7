import t from 'tap';
import { z } from 'zod';
import { bigintId, calendarDay, isBigintId, isoTime, isoTimeAsDate, text, timeProblem } from './params.ts';

t.test('bigint ids: 1 to the bigint ceiling, decimal only', async (t) => {
  for (const ok of ['1', '42', '9223372036854775807']) t.ok(isBigintId(ok), ok);
  for (const bad of ['0', '-1', '01', '1e3', '9223372036854775808', '99999999999999999999', '', ' 1', '1.0', '١٢'])
    t.notOk(isBigintId(bad), JSON.stringify(bad));
  t.equal(bigintId.safeParse('9223372036854775808').success, false);
});

t.test('times: ISO 8601 with an offset, inside 1970-9999, real calendar days', async (t) => {
  for (const ok of [
    '2026-11-24T10:00:00Z',
    '2026-11-24T10:00:00.123+02:00',
    '2026-11-24T10:00Z',
    '1970-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2024-02-29T12:00:00Z',
  ]) {
    t.equal(timeProblem(ok), undefined, ok);
  }
  const refused = [
    '0000-01-01T00:00:00Z',
    '+275760-09-13T00:00:00.000Z',
    '275760-09-13T00:00:00Z',
    `2026-01-01T00:00:00.${'1'.repeat(300)}Z`,
    '2026-02-29T00:00:00Z',
    '9999-12-31T23:59:59.999-23:59',
    '1969-12-31T23:59:59Z',
    '2026-11-24',
    '2026-11-24T10:00:00',
    'yesterday',
  ];
  for (const bad of refused) t.type(timeProblem(bad), 'string', bad.slice(0, 40));
  t.equal(isoTime.safeParse('0000-01-01T00:00:00Z').success, false);
  t.same(isoTimeAsDate.parse('2026-11-24T10:00:00+01:00'), new Date('2026-11-24T09:00:00Z'));
});

t.test('calendar days', async (t) => {
  t.ok(calendarDay.safeParse('2026-11-24').success);
  for (const bad of ['0000-01-01', '2026-02-30', '2026-13-01', '26-11-24', '2026-11-24T00:00:00Z']) t.notOk(calendarDay.safeParse(bad).success, bad);
});

t.test('text: no NUL, no lone surrogate, capped', async (t) => {
  const schema = z.object({ name: text(5) });
  t.ok(schema.safeParse({ name: 'ab🙂' }).success);
  for (const bad of ['a\u0000', 'a\uD800', '\uDC00b', 'abcdef']) t.notOk(schema.safeParse({ name: bad }).success, JSON.stringify(bad));
});
