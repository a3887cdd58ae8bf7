import t from 'tap';
import { healthChanges, type HealthCursor } from './health-changes.ts';

const cursor = (maxId: string, open: string[]): HealthCursor => ({ maxId, open: new Set(open) });

t.test('the first look announces nothing and remembers the newest id and the open ones', async (t) => {
  const { changes, next } = healthChanges(undefined, [
    { id: '3', closed: false },
    { id: '9', closed: true },
  ]);
  t.same(changes, []);
  t.same(next, cursor('9', ['3']));
  t.same(healthChanges(undefined, []).next, cursor('0', []), 'no alert yet');
});

t.test('table', async (t) => {
  const cases: Array<[string, HealthCursor, Array<{ id: string; closed: boolean }>, Array<[string, string]>, HealthCursor]> = [
    ['nothing changed', cursor('9', ['3']), [{ id: '3', closed: false }], [], cursor('9', ['3'])],
    [
      'a new open alert',
      cursor('9', ['3']),
      [
        { id: '3', closed: false },
        { id: '10', closed: false },
      ],
      [['10', 'opened']],
      cursor('10', ['3', '10']),
    ],
    ['an open one closed', cursor('9', ['3']), [{ id: '3', closed: true }], [['3', 'closed']], cursor('9', [])],
    [
      'opened and closed between looks',
      cursor('9', []),
      [{ id: '11', closed: true }],
      [
        ['11', 'opened'],
        ['11', 'closed'],
      ],
      cursor('11', []),
    ],
    ['a lower id committed late, still open', cursor('9', []), [{ id: '8', closed: false }], [['8', 'opened']], cursor('9', ['8'])],
    ['a lower id closed and not known open: an old one, nothing', cursor('9', []), [{ id: '7', closed: true }], [], cursor('9', [])],
    [
      'in id order, bigint ids past 2^53',
      cursor('9007199254740993', []),
      [
        { id: '9007199254740995', closed: false },
        { id: '9007199254740994', closed: false },
      ],
      [
        ['9007199254740994', 'opened'],
        ['9007199254740995', 'opened'],
      ],
      cursor('9007199254740995', ['9007199254740995', '9007199254740994']),
    ],
  ];
  for (const [name, before, rows, changes, next] of cases) {
    const out = healthChanges(before, rows);
    t.same(
      out.changes.map((c) => [c.id, c.event]),
      changes,
      name,
    );
    t.same(out.next, next, `${name}: cursor`);
  }
});
