import t from 'tap';
import { priorityRank, repeatVerdict, windowAfterSend, type CooldownWindow, type RepeatVerdict, type Sighting } from './fold.ts';

const COOLDOWN = 10 * 60_000;
const opened = new Date('2026-03-02T10:00:00Z');
const at = (minutes: number): Date => new Date(opened.getTime() + minutes * 60_000);
// The message that went out at 10:00 for a sighting at site A on a `high` watchlist.
const sent: CooldownWindow = { detectionId: '100', collectorId: 'site-a', priority: 'high', until: at(10), reaching: true };
const seen = (extra: Partial<Sighting> = {}): Sighting => ({ detectionId: '101', collectorId: 'site-a', priority: 'high', ...extra });

t.test('the cooldown folds only repeats at the same site, no more urgent, inside the window', async (t) => {
  const cases: [string, CooldownWindow | null, Sighting, Date, RepeatVerdict][] = [
    ['same site within the window: folded', sent, seen(), at(2), { send: false, foldInto: '100' }],
    ['same site one second before the end: folded', sent, seen(), new Date(at(10).getTime() - 1000), { send: false, foldInto: '100' }],
    ['same site, lower priority: folded', sent, seen({ priority: 'low' }), at(2), { send: false, foldInto: '100' }],
    ['another site two minutes later: sent', sent, seen({ collectorId: 'site-b' }), at(2), { send: true, because: 'other_site' }],
    ['another site, lower priority: still sent', sent, seen({ collectorId: 'site-b', priority: 'low' }), at(2), { send: true, because: 'other_site' }],
    ['same site, higher priority: sent', sent, seen({ priority: 'critical' }), at(2), { send: true, because: 'higher_priority' }],
    ['same site when the window ends: sent', sent, seen(), at(10), { send: true, because: 'window_over' }],
    ['same site after the window: sent', sent, seen(), at(25), { send: true, because: 'window_over' }],
    ['no window yet: sent', null, seen(), at(0), { send: true, because: 'no_window' }],
    [
      'another alert of the sighting that went out: sent with it',
      sent,
      seen({ detectionId: '100', priority: 'low' }),
      at(0),
      { send: true, because: 'same_sighting' },
    ],
    ['the first message failed or was held back: sent', { ...sent, reaching: false }, seen(), at(2), { send: true, because: 'first_not_delivered' }],
    ['a window from before sites were recorded: sent', { ...sent, collectorId: null, priority: null }, seen(), at(2), { send: true, because: 'other_site' }],
    ['a window without a priority: sent', { ...sent, priority: null }, seen({ priority: 'low' }), at(2), { send: true, because: 'higher_priority' }],
  ];
  for (const [name, window, sighting, now, expected] of cases) t.same(repeatVerdict(window, sighting, now), expected, name);
});

t.test('priorities rank in their stored order', async (t) => {
  t.same(['low', 'medium', 'high', 'critical'].map(priorityRank), [0, 1, 2, 3]);
  t.equal(priorityRank(null), -1);
  t.equal(priorityRank('urgent'), -1, 'an unknown value ranks below every known one');
});

t.test('the window after a send', async (t) => {
  t.same(
    windowAfterSend(sent, seen({ collectorId: 'site-b' }), at(2), COOLDOWN),
    { detectionId: '101', collectorId: 'site-b', priority: 'high', until: at(12), reaching: true },
    'another site opens a new window there, from now',
  );
  t.same(
    windowAfterSend(sent, seen({ priority: 'critical' }), at(3), COOLDOWN),
    { detectionId: '101', collectorId: 'site-a', priority: 'critical', until: at(13), reaching: true },
    'a more urgent sighting opens a window at its priority',
  );
  t.same(windowAfterSend(null, seen(), at(0), COOLDOWN), { detectionId: '101', collectorId: 'site-a', priority: 'high', until: at(10), reaching: true });
  t.same(
    windowAfterSend(sent, seen({ detectionId: '100', priority: 'critical' }), at(0), COOLDOWN),
    { ...sent, priority: 'critical' },
    'another alert of the same sighting keeps the window, at the higher priority',
  );
  t.same(windowAfterSend(sent, seen({ detectionId: '100', priority: 'low' }), at(0), COOLDOWN), sent, 'and never lowers it');
  // A car parked at A, then driven to B and back: back at A is news, as the last message said B.
  let window = windowAfterSend(null, seen({ detectionId: '1' }), at(0), COOLDOWN);
  t.same(repeatVerdict(window, seen({ detectionId: '2', collectorId: 'site-b' }), at(2)), { send: true, because: 'other_site' });
  window = windowAfterSend(window, seen({ detectionId: '2', collectorId: 'site-b' }), at(2), COOLDOWN);
  t.same(repeatVerdict(window, seen({ detectionId: '3' }), at(4)), { send: true, because: 'other_site' }, 'A, B, then A again: sent');
});
