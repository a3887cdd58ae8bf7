import t from 'tap';
import { createStatusTracker } from './status.ts';

t.test('state transitions keep the last error and success times', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const s = createStatusTracker({ id: 'c', name: 'Gate', vendor: 'vendor_a', mode: 'pull' }, { now: () => now });
  t.equal(s.snapshot().state, 'CONNECTING');
  s.online();
  t.equal(s.snapshot().lastSuccessAt, '2030-01-01T00:00:00.000Z');
  now += 5000;
  s.offline('ECONNREFUSED');
  s.count('reconnects');
  t.match(s.snapshot(), { state: 'OFFLINE', lastError: 'ECONNREFUSED', lastErrorAt: '2030-01-01T00:00:05.000Z', counters: { reconnects: 1 } });
  now += 5000;
  s.online();
  s.read();
  s.count('imageFailures', 2);
  const snap = s.snapshot();
  t.match(snap, { state: 'ONLINE', lastError: 'ECONNREFUSED', lastSuccessAt: '2030-01-01T00:00:10.000Z', lastReadAt: '2030-01-01T00:00:10.000Z' });
  t.same(snap.counters, {
    reads: 1,
    errors: 0,
    imageFailures: 2,
    imagesNotImages: 0,
    imageRateLimited: 0,
    reconnects: 1,
    sinkFailures: 0,
    alreadyDelivered: 0,
    refusedTooOld: 0,
    timesCorrected: 0,
    clockRewinds: 0,
  });
  snap.counters.reads = 99;
  t.equal(s.snapshot().counters.reads, 1, 'snapshots are copies');
});
