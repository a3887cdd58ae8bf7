import t from 'tap';
import type { BatchItemResult } from '@alpr/shared/protocol/batch';
import { splitResults } from './results.ts';

const sent = [
  { id: 10, detectionId: 'a' },
  { id: 11, detectionId: 'b' },
  { id: 12, detectionId: 'c' },
  { id: 13, detectionId: 'd' },
];
const r = (index: number, detection_id: string | null, status: BatchItemResult['status'], reason?: string): BatchItemResult =>
  reason === undefined ? { index, detection_id, status } : { index, detection_id, status, reason };

t.test('only stored and duplicate leave; rejected are marked; the rest stay', async (t) => {
  const cases: [string, BatchItemResult[], ReturnType<typeof splitResults>][] = [
    [
      'all stored',
      [r(0, 'a', 'stored'), r(1, 'b', 'stored'), r(2, 'c', 'stored'), r(3, 'd', 'stored')],
      { stored: [10, 11, 12, 13], duplicate: [], rejected: [], unacknowledged: [], mismatched: 0 },
    ],
    [
      'mixed, out of order',
      [r(3, 'd', 'rejected', 'bad plate'), r(0, 'a', 'duplicate'), r(1, 'b', 'stored'), r(2, 'c', 'rejected')],
      {
        stored: [11],
        duplicate: [10],
        rejected: [
          { id: 13, reason: 'bad plate' },
          { id: 12, reason: 'rejected by hub' },
        ],
        unacknowledged: [],
        mismatched: 0,
      },
    ],
    ['only some listed', [r(1, 'b', 'stored')], { stored: [11], duplicate: [], rejected: [], unacknowledged: [10, 12, 13], mismatched: 0 }],
    ['empty results', [], { stored: [], duplicate: [], rejected: [], unacknowledged: [10, 11, 12, 13], mismatched: 0 }],
    [
      'wrong detection_id at an index is not trusted',
      [r(0, 'b', 'stored'), r(1, 'b', 'stored')],
      { stored: [11], duplicate: [], rejected: [], unacknowledged: [10, 12, 13], mismatched: 1 },
    ],
    [
      'index out of range and repeated index',
      [r(9, 'a', 'stored'), r(2, 'c', 'stored'), r(2, 'c', 'rejected')],
      { stored: [12], duplicate: [], rejected: [], unacknowledged: [10, 11, 13], mismatched: 2 },
    ],
    [
      'null detection_id (hub could not read it) is matched by index',
      [r(3, null, 'rejected', 'invalid detection')],
      { stored: [], duplicate: [], rejected: [{ id: 13, reason: 'invalid detection' }], unacknowledged: [10, 11, 12], mismatched: 0 },
    ],
  ];
  for (const [name, results, expected] of cases) t.same(splitResults(sent, results), expected, name);
});
