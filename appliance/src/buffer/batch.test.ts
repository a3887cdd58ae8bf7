import t from 'tap';
import { randomBytes } from 'node:crypto';
import { insertDetection } from './insert.ts';
import { nextBatch, markInFlight, markUploaded, releaseInFlight, recordFailure, DEFAULT_BATCH_LIMITS } from './batch.ts';
import { listRejected } from './dead-letter.ts';
import { enforceRetention } from './retention.ts';
import { openBuffer, closeBuffer } from './open.ts';
import { readCounters } from './counters.ts';
import { countRows, memoryLog, openTestBuffer, sampleDetection } from './buffer.test-helper.ts';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
/** Distinct plates so nothing dedupes. */
const nth = (i: number, extra: { atMs?: number } = {}) => sampleDetection({ id: `d${i}`, plate: `P${i}`, atMs: extra.atMs ?? T0 + i * 1000 });

t.test('nextBatch gives at most 50, oldest first by seq, and marks nothing', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  // Capture times deliberately out of order: arrival (seq) decides, not capture time.
  for (let i = 0; i < 120; i += 1) insertDetection(buffer, nth(i, { atMs: T0 - i * 1000 }));
  const batch = nextBatch(buffer);
  t.equal(batch.length, DEFAULT_BATCH_LIMITS.maxItems);
  t.same(
    batch.map((item) => item.detection.detection_id),
    Array.from({ length: 50 }, (_, i) => `d${i}`),
  );
  t.same(
    nextBatch(buffer).map((item) => item.seq),
    batch.map((item) => item.seq),
    'same batch again',
  );
  t.equal(nextBatch(buffer, { maxItems: 3, maxBytes: DEFAULT_BATCH_LIMITS.maxBytes }).length, 3);
});

t.test('nextBatch stops before 5 MiB, but an oversized single item still goes alone', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  for (let i = 0; i < 40; i += 1) insertDetection(buffer, nth(i), { full_scene: randomBytes(200 * 1024) });
  const batch = nextBatch(buffer);
  const bytes = batch.reduce((sum, item) => sum + item.sizeBytes, 0);
  t.ok(bytes <= 5 * 1024 * 1024, `${bytes} bytes within 5 MiB`);
  const next = nextBatch(buffer, { maxItems: 50, maxBytes: Number.MAX_SAFE_INTEGER })[batch.length];
  t.ok(next && bytes + next.sizeBytes > 5 * 1024 * 1024, 'one more would exceed 5 MiB');
  t.equal(batch.length, 25);

  const big = openTestBuffer(t.teardown);
  insertDetection(big, nth(0), { full_scene: randomBytes(6 * 1024 * 1024) });
  insertDetection(big, nth(1), { full_scene: randomBytes(10) });
  t.same(
    nextBatch(big).map((item) => item.detection.detection_id),
    ['d0'],
  );
});

t.test('upload lifecycle: in flight, retried, uploaded, rejected to the dead letter', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  for (let i = 0; i < 4; i += 1) insertDetection(buffer, nth(i), { plate_crop: randomBytes(64) });
  t.equal(markInFlight(buffer, ['d0', 'd1', 'd2']), 3);
  t.same(
    nextBatch(buffer).map((item) => item.detection.detection_id),
    ['d3'],
    'in-flight rows are not offered',
  );

  t.equal(releaseInFlight(buffer, ['d0', 'd3'], 'ECONNRESET'), 1, 'only in-flight rows are released');
  const [retried] = nextBatch(buffer);
  t.equal(retried?.detection.detection_id, 'd0');
  t.equal(retried?.attempts, 1);
  t.same(buffer.sqlite.prepare("SELECT last_error FROM detections WHERE detection_id = 'd0'").get(), { last_error: 'ECONNRESET' });

  t.equal(markUploaded(buffer, ['d1']), 1);
  t.equal(
    recordFailure(buffer, [
      { detectionId: 'd2', reason: 'plate.text invalid' },
      { detectionId: 'gone', reason: 'x' },
    ]),
    1,
  );
  t.same(
    nextBatch(buffer).map((item) => item.detection.detection_id),
    ['d0', 'd3'],
  );
  t.equal(countRows(buffer, 'images'), 2, 'images of uploaded and rejected rows are gone');
  const [dead] = listRejected(buffer);
  t.match(dead, { detectionId: 'd2', reason: 'plate.text invalid', cameraMac: 'a1b2c3d4e5f6', rejectedMs: T0 });
  t.match(readCounters(buffer), { rejected: 1, upload_failures: 1 });

  buffer.clock.advance(7 * 24 * 3600_000 + 1);
  t.equal(enforceRetention(buffer).purgedRejected, 1, 'dead letters are kept 7 days');
  t.equal(countRows(buffer, 'rejected'), 0);
});

t.test('rows left in flight by a crash return to pending on reopen', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, nth(0));
  markInFlight(buffer, ['d0']);
  closeBuffer(buffer);
  const log = memoryLog();
  const again = openBuffer({ file: buffer.file, clock: buffer.clock, log });
  t.teardown(() => closeBuffer(again));
  t.same(
    nextBatch(again).map((item) => item.detection.detection_id),
    ['d0'],
  );
  t.match(log.entries, [{ level: 'warn', obj: { rows: 1 } }]);
});

t.test('a row whose payload no longer parses goes to the dead letter, not into a batch', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, nth(0));
  insertDetection(buffer, nth(1));
  buffer.sqlite.prepare("UPDATE detections SET payload = '{broken' WHERE detection_id = 'd0'").run();
  t.same(
    nextBatch(buffer).map((item) => item.detection.detection_id),
    ['d1'],
  );
  t.match(listRejected(buffer), [{ detectionId: 'd0', reason: 'unreadable payload in buffer' }]);
  t.equal(readCounters(buffer).unreadable_rows, 1);
});
