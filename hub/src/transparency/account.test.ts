/**
 * The pure parts of the public account: the months shown cross a year boundary in UTC, and
 * the figures are computed once a minute however many callers arrive together.
 */
import t from 'tap';
import { DEFAULT_HORIZONS } from '../platform/config/retention-horizons.ts';
import { accountRange, assembleAccount } from './account.ts';
import { oncePerInterval } from './cache.ts';

t.test('twelve UTC months, this one last, across a new year', async (t) => {
  // 00:30 on 1 February in UTC is still 31 January in New York: the month is UTC's.
  const range = accountRange(new Date('2027-02-01T00:30:00Z'));
  t.equal(range.months.length, 12);
  t.equal(range.months[0], '2026-03');
  t.equal(range.months[11], '2027-02');
  t.equal(range.from.toISOString(), '2026-03-01T00:00:00.000Z');
  t.equal(range.to.toISOString(), '2027-03-01T00:00:00.000Z');
});

t.test('an empty hub: zeros every month, no purpose labels', async (t) => {
  const account = assembleAccount({
    now: new Date('2026-11-27T07:00:00Z'),
    horizons: DEFAULT_HORIZONS,
    preset: 'default',
    purposes: [{ code: 'stolen_vehicle', label: 'Stolen vehicle', case_number_required: false, active: false }],
    foldedReads: new Map(),
    storedReads: new Map(),
    cameras: new Map(),
    alerts: new Map(),
    audit: [],
  });
  t.equal(account.months.length, 12);
  t.ok(account.months.every((m) => m.reads === 0 && m.searches === 0 && Object.keys(m.searches_by_purpose).length === 0));
  t.same(account.purposes, [], 'a retired purpose is not offered');
  t.same(account.purpose_labels, {});
});

t.test('once a minute, shared by callers arriving together', async (t) => {
  let computed = 0;
  const once = oncePerInterval(async (now) => {
    computed += 1;
    await new Promise((resolve) => setImmediate(resolve));
    return now.getTime();
  });
  const at = new Date('2026-11-27T07:00:00Z');
  const together = await Promise.all([once.get(at), once.get(at), once.get(at)]);
  t.same(together, [at.getTime(), at.getTime(), at.getTime()]);
  t.equal(computed, 1, 'three callers, one computation');
  t.equal(await once.get(new Date(at.getTime() + 59_999)), at.getTime(), 'within the minute: kept');
  t.equal(computed, 1);
  t.equal(await once.get(new Date(at.getTime() + 60_000)), at.getTime() + 60_000, 'a minute on: computed again');
  t.equal(computed, 2);
  t.equal(await once.get(new Date(at.getTime() - 1_000)), at.getTime() - 1_000, 'a clock set back: not trusted, computed again');
  t.equal(computed, 3);
});

t.test('a failed computation is not kept', async (t) => {
  let fail = true;
  const once = oncePerInterval(async () => {
    if (fail) throw new Error('database away');
    return 'ok';
  });
  const at = new Date('2026-11-27T07:00:00Z');
  await t.rejects(once.get(at), /database away/);
  fail = false;
  t.equal(await once.get(at), 'ok', 'the next caller tries again');
});
