import t from 'tap';
import { decideDedupe, withinWindow } from './dedupe.ts';

t.test('decideDedupe', async (t) => {
  const cases = [
    { kept: undefined, incoming: 0.5, want: 'store' },
    { kept: { confidence: 0.8, state: 'pending' as const, sent: false }, incoming: 0.7, want: 'drop' },
    { kept: { confidence: 0.8, state: 'pending' as const, sent: false }, incoming: 0.8, want: 'drop' },
    { kept: { confidence: 0.8, state: 'pending' as const, sent: false }, incoming: 0.9, want: 'replace' },
    { kept: { confidence: 0.8, state: 'pending' as const, sent: true }, incoming: 0.9, want: 'drop_better_late' },
    { kept: { confidence: 0.8, state: 'in_flight' as const, sent: true }, incoming: 0.9, want: 'drop_better_late' },
    { kept: { confidence: 0.8, state: 'gone' as const, sent: true }, incoming: 0.9, want: 'drop_better_late' },
    { kept: { confidence: 0.8, state: 'gone' as const, sent: true }, incoming: 0.1, want: 'drop' },
  ];
  for (const c of cases) t.equal(decideDedupe(c.kept, c.incoming), c.want, JSON.stringify(c));
});

t.test('withinWindow is symmetric and inclusive', async (t) => {
  t.ok(withinWindow(0, 30_000, 30_000));
  t.ok(withinWindow(30_000, 0, 30_000));
  t.notOk(withinWindow(0, 30_001, 30_000));
  t.notOk(withinWindow(30_001, 0, 30_000));
});
