import t from 'tap';
import { createHash } from 'node:crypto';
import { insertDetection } from './insert.ts';
import { nextBatch, markInFlight, markUploaded } from './batch.ts';
import { enforceRetention } from './retention.ts';
import { readCounters } from './counters.ts';
import { countRows, openTestBuffer, sampleDetection, sampleImages } from './buffer.test-helper.ts';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const sha = (bytes: Uint8Array | undefined) => (bytes ? createHash('sha256').update(bytes).digest('hex') : undefined);

t.test('inside 30 s: a weaker or equal read of the same MAC + plate is dropped', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const first = insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0, confidence: 0.9 }));
  t.same(insertDetection(buffer, sampleDetection({ id: 'b', atMs: T0 + 10_000, confidence: 0.7 })), { status: 'duplicate', seq: first.seq });
  t.same(
    insertDetection(buffer, sampleDetection({ id: 'c', atMs: T0 - 29_000, confidence: 0.9 })),
    { status: 'duplicate', seq: first.seq },
    'earlier capture, equal confidence',
  );
  const batch = nextBatch(buffer);
  t.equal(batch.length, 1);
  t.equal(batch[0]?.detection.detection_id, 'a');
  t.equal(readCounters(buffer).dedupe_dropped, 2);
});

t.test('inside 30 s: a better read replaces the pending one in place', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const firstImages = sampleImages(300, 600);
  const first = insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0, confidence: 0.6 }), firstImages);
  buffer.clock.advance(5_000);
  const betterCrop = new Uint8Array([9, 9, 9, 9]);
  const better = sampleDetection({ id: 'b', atMs: T0 + 4_000, confidence: 0.95 });
  t.same(insertDetection(buffer, better, { plate_crop: betterCrop }), { status: 'replaced', seq: first.seq });

  const [item, ...rest] = nextBatch(buffer);
  t.equal(rest.length, 0);
  t.same(item?.detection, better, 'payload is the better read');
  t.equal(item?.seq, first.seq, 'keeps its place in the queue');
  t.equal(item?.receivedMs, T0, 'keeps the first arrival time');
  t.equal(item?.images.plate_crop?.sha256, sha(betterCrop), 'crop from the better read');
  t.equal(item?.images.full_scene?.sha256, sha(firstImages.full_scene), 'scene kept: the better read had none');
  t.equal(item?.sizeBytes, Buffer.byteLength(JSON.stringify(better)) + 4 + 600);
  t.equal(readCounters(buffer).dedupe_replaced, 1);
  // The replaced read's id is remembered: re-delivering it is a duplicate, not a new row.
  t.equal(insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0, confidence: 0.6 })).status, 'duplicate');
  t.equal(countRows(buffer, 'detections'), 1);
});

t.test('outside 30 s, another camera, or another plate: a new detection', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0 }));
  t.equal(insertDetection(buffer, sampleDetection({ id: 'b', atMs: T0 + 31_000 })).status, 'stored', '+31 s');
  t.equal(insertDetection(buffer, sampleDetection({ id: 'c', atMs: T0 - 31_000 })).status, 'stored', '-31 s');
  t.equal(insertDetection(buffer, sampleDetection({ id: 'd', atMs: T0 + 1_000, mac: 'ffeeddccbbaa' })).status, 'stored', 'other camera');
  t.equal(insertDetection(buffer, sampleDetection({ id: 'e', atMs: T0 + 1_000, plate: 'ZZ999' })).status, 'stored', 'other plate');
  t.equal(countRows(buffer, 'detections'), 5);
});

t.test('the window is anchored on the kept read, so a lingering car is reported once per window', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0 }));
  t.equal(insertDetection(buffer, sampleDetection({ id: 'b', atMs: T0 + 25_000 })).status, 'duplicate');
  t.equal(insertDetection(buffer, sampleDetection({ id: 'c', atMs: T0 + 50_000 })).status, 'stored', '50 s after the kept read');
});

t.test('dedupe still works after the first read was uploaded and deleted', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const first = insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0, confidence: 0.8 }), sampleImages(10, 10));
  markInFlight(buffer, ['a']);
  markUploaded(buffer, ['a']);
  t.equal(countRows(buffer, 'detections'), 0);
  buffer.clock.advance(12_000);
  t.same(insertDetection(buffer, sampleDetection({ id: 'b', atMs: T0 + 12_000, confidence: 0.5 })), { status: 'duplicate', seq: first.seq });
  t.same(
    insertDetection(buffer, sampleDetection({ id: 'c', atMs: T0 + 12_000, confidence: 0.99 })),
    { status: 'duplicate', seq: first.seq },
    'even a better read: the hub has the pass',
  );
  t.equal(countRows(buffer, 'detections'), 0);
  const counters = readCounters(buffer);
  t.equal(counters.dedupe_dropped, 1);
  t.equal(counters.dedupe_dropped_better_late, 1);
});

t.test('a better read does not replace one already in flight', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0, confidence: 0.8 }));
  markInFlight(buffer, ['a']);
  t.equal(insertDetection(buffer, sampleDetection({ id: 'b', atMs: T0 + 1_000, confidence: 0.99 })).status, 'duplicate');
  const row = buffer.sqlite.prepare('SELECT detection_id, confidence, upload_state FROM detections').all();
  t.same(row, [{ detection_id: 'a', confidence: 0.8, upload_state: 'in_flight' }]);
});

t.test('dedupe memory is purged by age (a short keep configured), after which a read counts again', async (t) => {
  // The default keep is 8 days (old-copies.test.ts); 10 minutes here exercises both purges.
  const buffer = openTestBuffer(t.teardown, { limits: { recentReadsKeepMs: 10 * 60_000 } });
  insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0 }));
  markUploaded(buffer, ['a']);
  t.equal(countRows(buffer, 'recent_reads'), 1);
  buffer.clock.advance(9 * 60_000);
  insertDetection(buffer, sampleDetection({ id: 'x', plate: 'OTHER', atMs: T0 + 9 * 60_000 }));
  t.equal(countRows(buffer, 'recent_reads'), 2, 'kept for 10 minutes');
  buffer.clock.advance(2 * 60_000);
  // The insert path purges on its own (at most every 5 s); retention purges too.
  insertDetection(buffer, sampleDetection({ id: 'y', plate: 'OTHER2', atMs: T0 + 11 * 60_000 }));
  t.equal(countRows(buffer, 'recent_reads'), 2, 'the first read is forgotten after 10 minutes');
  buffer.clock.advance(10 * 60_000 + 1);
  t.equal(enforceRetention(buffer).purgedRecentReads, 2);
  t.equal(insertDetection(buffer, sampleDetection({ id: 'a', atMs: T0 })).status, 'stored');
});
