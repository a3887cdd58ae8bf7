import t from 'tap';
import { dropBefore, foldUpload, mergeLoad, type PendingLoads } from './load-fold.ts';

const at = (iso: string) => new Date(iso);

t.test('requests of one minute sum, the largest batch and body are kept, a new minute starts a row', async (t) => {
  const pending: PendingLoads = new Map();
  foldUpload(pending, 'c1', at('2026-01-15T10:00:05Z'), { items: 50, rejectedItems: 2, failed: false, bytes: 4_000 });
  foldUpload(pending, 'c1', at('2026-01-15T10:00:59.999Z'), { items: 120, rejectedItems: 0, failed: false, bytes: 9_000 });
  foldUpload(pending, 'c1', at('2026-01-15T10:00:30Z'), { items: 0, rejectedItems: 0, failed: true, bytes: 12_000_000 });
  foldUpload(pending, 'c1', at('2026-01-15T10:01:00Z'), { items: 10, rejectedItems: 1, failed: false, bytes: 800 });
  foldUpload(pending, 'c2', at('2026-01-15T10:00:10Z'), { items: 5, rejectedItems: 0, failed: false, bytes: 300 });
  t.same(
    [...pending.values()].map((l) => ({ ...l, minute: new Date(l.minute).toISOString() })),
    [
      {
        collectorId: 'c1',
        minute: '2026-01-15T10:00:00.000Z',
        requests: 3,
        failedRequests: 1,
        items: 170,
        rejectedItems: 2,
        maxBatchItems: 120,
        maxRequestBytes: 12_000_000,
      },
      {
        collectorId: 'c1',
        minute: '2026-01-15T10:01:00.000Z',
        requests: 1,
        failedRequests: 0,
        items: 10,
        rejectedItems: 1,
        maxBatchItems: 10,
        maxRequestBytes: 800,
      },
      {
        collectorId: 'c2',
        minute: '2026-01-15T10:00:00.000Z',
        requests: 1,
        failedRequests: 0,
        items: 5,
        rejectedItems: 0,
        maxBatchItems: 5,
        maxRequestBytes: 300,
      },
    ],
  );
});

t.test('sums given back merge with what came meanwhile; old minutes are dropped with their count', async (t) => {
  const pending: PendingLoads = new Map();
  foldUpload(pending, 'c1', at('2026-01-15T10:20:00Z'), { items: 7, rejectedItems: 0, failed: false, bytes: 100 });
  const given = {
    collectorId: 'c1',
    minute: at('2026-01-15T10:20:00Z').getTime(),
    requests: 4,
    failedRequests: 1,
    items: 40,
    rejectedItems: 3,
    maxBatchItems: 20,
    maxRequestBytes: 50,
  };
  mergeLoad(pending, given);
  t.same(pending.get(`c1 ${given.minute}`), { ...given, requests: 5, items: 47, maxRequestBytes: 100 });
  given.requests = 99;
  t.equal(pending.get(`c1 ${given.minute}`)?.requests, 5, 'a merged load is copied, not shared');
  mergeLoad(pending, { ...given, minute: at('2026-01-15T10:01:00Z').getTime(), requests: 6 });
  t.equal(dropBefore(pending, at('2026-01-15T10:05:00Z').getTime()), 6, 'the requests of the dropped minute');
  t.same([...pending.keys()], [`c1 ${given.minute}`]);
});
