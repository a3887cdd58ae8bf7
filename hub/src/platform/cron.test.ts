/** The cron bounds check, pure (issue 50 item 1): every number within its field before node-cron expands it. */
import t from 'tap';
import { cronBoundsProblem } from './cron.ts';
import { feedScheduleProblem } from '../watchlists/feeds/cron.ts';
import { cronScheduleProblem as scheduleProblem } from './cron.ts';

t.test('expressions people write pass', async (t) => {
  for (const ok of ['7 * * * *', '0 3 * * 1-5', '*/15 0-23/2 1,15 jan-jun mon-fri', '0 0 1 * 7', '30 2 * * sun', '0 0 12 * * *', '@daily', '0 3 L * *']) {
    t.equal(cronBoundsProblem(ok), undefined, ok);
  }
});

t.test('numbers past their field are refused before any parser sees them', async (t) => {
  const cases: [string, RegExp][] = [
    ['0-99999999999999999999 * * * *', /^minute: 999999999999… is past 59/],
    ['0-99999999 * * * *', /^minute: 99999999 is past 59/],
    ['0 24 * * *', /^hour: 24 is past 23/],
    ['0 0 32 * *', /^day of month/],
    ['0 0 * 13 *', /^month/],
    ['0 0 * * 0-9999999', /^weekday/],
    ['*/9999999999 * * * *', /^minute/],
    ['0 0 L-99999 * *', /^day of month/],
    ['0 0 * * 1#99999', /^weekday/],
    ['60 0 0 * * *', /^second: 60/],
    ['*/0 * * * *', /step must be at least 1/],
    ['* * *', /expected 5 fields/],
    [`${'1,'.repeat(150)}1 * * * *`, /at most 200 characters/],
  ];
  for (const [expression, problem] of cases) t.match(cronBoundsProblem(expression), problem, expression.slice(0, 40));
});

t.test('both cron users refuse the crash inputs quickly, and still take good schedules', async (t) => {
  for (const hostile of ['0-99999999999999999999 * * * *', '0-99999999 * * * *', '0-9999999999 0-99999999 * * *']) {
    t.ok(feedScheduleProblem(hostile), `feed: ${hostile}`);
    t.ok(scheduleProblem(hostile), `retention: ${hostile}`);
  }
  t.equal(feedScheduleProblem('0 * * * *'), undefined);
  t.equal(scheduleProblem('17 3 * * *'), undefined);
});
