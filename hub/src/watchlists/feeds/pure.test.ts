/** Feed parsing, diffing, the sanity rule and the schedule, pure (docs/watchlists.md "Feeds"). */
import t from 'tap';
import { feedDue, feedScheduleProblem, lastScheduledMinute } from './cron.ts';
import { diffFeed, diffProblem, type CurrentEntry } from './diff.ts';
import { parseCsvFeed, parseJsonFeed, type FeedEntry } from './parse.ts';
import { aggregatedText, singleAlertText, type AlertLine } from '../../messaging/delivery/message-text.ts';

t.test('CSV: the import’s columns plus expires_at and priority', async (t) => {
  const parsed = parseCsvFeed('\uFEFFPlate,Priority,expires_at,notes\r\nab-12 cde,HIGH,2026-12-31T00:00:00Z,"van, blue"\r\nKX45MNP,,,\r\n');
  t.same(parsed, {
    entries: [
      { plate: 'AB12CDE', key: 'AB12C0E', notes: 'van, blue', expiresAt: new Date('2026-12-31T00:00:00Z'), priority: 'high' },
      { plate: 'KX45MNP', key: 'KX45MNP', notes: null, expiresAt: null, priority: null },
    ],
  });
  t.match(parseCsvFeed('plate,colour\nAB1\n'), { error: /header row/ }, 'an unknown column');
  t.match(parseCsvFeed('plate\nAB1\n!!\n'), { error: /line 3/ }, 'one bad row refuses the feed');
  t.match(parseCsvFeed('plate,expires_at\nAB1,tomorrow\n'), { error: /ISO 8601/ });
  t.match(parseCsvFeed('plate,priority\nAB1,urgent\n'), { error: /priority/ });
  t.match(parseCsvFeed('plate\nAB12CDE\nab 12 cde\n'), { error: /same plate as line 2/ });
  t.match(parseCsvFeed('plate\n"AB1\n'), { error: /never closed/ });
  t.match(parseCsvFeed(''), { error: /empty/ });
});

t.test('JSON: an array or { entries }', async (t) => {
  const one = { entries: [{ plate: 'AB12CDE', notes: null, expires_at: '2026-12-31T00:00:00+01:00', priority: 'low' }] };
  t.match(parseJsonFeed(JSON.stringify(one)), { entries: [{ plate: 'AB12CDE', priority: 'low', expiresAt: new Date('2026-12-30T23:00:00Z') }] });
  t.match(parseJsonFeed('[{"plate":"AB1"}]'), { entries: [{ plate: 'AB1' }] });
  t.same(parseJsonFeed('[]'), { entries: [] });
  for (const garbage of ['<html>', '{"plates":[]}', '[1]', '[{"plate":5}]', '[{"plate":"AB1","colour":"red"}]', 'null']) {
    t.ok('error' in parseJsonFeed(garbage), garbage);
  }
});

const cur = (plate: string, extra: Partial<CurrentEntry> = {}): CurrentEntry => ({
  id: plate,
  key: plate,
  plate,
  notes: null,
  expiresAt: null,
  priority: null,
  ...extra,
});
const fed = (plate: string, extra: Partial<FeedEntry> = {}): FeedEntry => ({ plate, key: plate, notes: null, expiresAt: null, priority: null, ...extra });

t.test('diff and the sanity rule', async (t) => {
  const d = diffFeed([cur('A1'), cur('B2'), cur('C3', { notes: 'x' })], [fed('B2'), fed('C3'), fed('D4')]);
  t.same(
    d.added.map((e) => e.plate),
    ['D4'],
  );
  t.same(
    d.removed.map((e) => e.plate),
    ['A1'],
  );
  t.same(
    d.changed.map((c) => c.after.plate),
    ['C3'],
  );
  t.equal(d.unchanged, 1);
  t.match(diffProblem(3, 0, diffFeed([cur('A1'), cur('B2'), cur('C3')], [])), /empty/, 'an empty feed never empties a list');
  const ten = Array.from({ length: 10 }, (_, i) => cur(`P${i}`));
  t.match(
    diffProblem(
      10,
      4,
      diffFeed(
        ten,
        ten.slice(0, 4).map((e) => fed(e.plate)),
      ),
    ),
    /remove 6 of 10/,
    'more than half of 10 removed',
  );
  t.equal(
    diffProblem(
      10,
      5,
      diffFeed(
        ten,
        ten.slice(0, 5).map((e) => fed(e.plate)),
      ),
    ),
    undefined,
    'half is allowed',
  );
  t.equal(diffProblem(4, 1, diffFeed(ten.slice(0, 4), [fed('P0')])), undefined, 'a small list may change wholesale');
});

t.test('schedules: five fields, UTC, due once per scheduled minute', async (t) => {
  t.equal(feedScheduleProblem('7 * * * *'), undefined);
  t.ok(feedScheduleProblem('* * * * * *'), 'seconds refused');
  t.ok(feedScheduleProblem('0 3 L * *'), 'L refused');
  t.ok(feedScheduleProblem('every hour'));
  t.same(lastScheduledMinute('0 3 * * *', new Date('2026-01-15T10:00:30Z')), new Date('2026-01-15T03:00:00Z'));
  t.same(lastScheduledMinute('0 3 * * 1', new Date('2026-01-15T10:00:00Z')), new Date('2026-01-12T03:00:00Z'), 'the Monday before');
  t.equal(feedDue('0 3 * * *', null, new Date('2026-01-15T10:00:00Z')), true, 'never read');
  t.equal(feedDue('0 3 * * *', new Date('2026-01-15T03:00:05Z'), new Date('2026-01-15T10:00:00Z')), false);
  t.equal(feedDue('0 3 * * *', new Date('2026-01-14T03:00:05Z'), new Date('2026-01-15T10:00:00Z')), true, 'one read for the missed 03:00');
});

t.test('the bot says a historical hit is historical', async (t) => {
  const line: AlertLine = {
    alertId: '1',
    detectionId: '101',
    plate: 'KX45MNP',
    watchlistName: 'Stolen',
    priority: 'high',
    capturedAt: new Date('2026-01-14T10:00:00Z'),
    confidence: 0.9,
    siteName: 'North gate',
    cameraName: 'Lane 1',
    uncertain: false,
    unverified: false,
  };
  t.notMatch(singleAlertText(line, 'UTC', 'https://hub.test'), /[Hh]istorical/, 'a live alert says nothing of it');
  t.match(singleAlertText({ ...line, historical: true }, 'UTC', 'https://hub.test'), /\nHistorical hit: a past read/);
  t.match(
    aggregatedText(
      [
        { ...line, historical: true },
        { ...line, alertId: '2' },
      ],
      'UTC',
      'https://hub.test',
    ).text,
    /KX45MNP on Stolen \(high\) \(historical\)\n/,
  );
});
