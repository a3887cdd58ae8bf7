import t from 'tap';
import { createHash } from 'node:crypto';
import { insertDetection, insertDetections } from './insert.ts';
import { nextBatch, markUploaded } from './batch.ts';
import { openBuffer, closeBuffer } from './open.ts';
import { readCounters } from './counters.ts';
import { countRows, memoryLog, openTestBuffer, sampleDetection, sampleImages } from './buffer.test-helper.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

t.test('a stored detection reads back whole, with its images and their hashes', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const detection = sampleDetection({ plate: 'XY987Z', confidence: 0.93 });
  const images = sampleImages();
  const result = insertDetection(buffer, detection, images);
  t.equal(result.status, 'stored');

  const [item, ...rest] = nextBatch(buffer);
  t.equal(rest.length, 0);
  if (!item) throw new Error('no item');
  t.equal(item.seq, result.seq);
  t.same(item.detection, detection);
  t.equal(item.receivedMs, buffer.clock.now().getTime());
  for (const kind of ['plate_crop', 'full_scene'] as const) {
    const sent = images[kind];
    const stored = item.images[kind];
    if (!sent || !stored) throw new Error(`missing ${kind}`);
    t.ok(Buffer.from(stored.bytes).equals(Buffer.from(sent)), `${kind} bytes`);
    t.equal(stored.sha256, sha(sent), `${kind} sha256`);
    t.equal(stored.size, sent.byteLength, `${kind} size`);
  }
  const expectedSize = Buffer.byteLength(JSON.stringify(detection)) + 20 * 1024 + 65 * 1024;
  t.equal(item.sizeBytes, expectedSize, 'size counts payload and images');
});

t.test('zero-length images are not stored; a detection without images is fine', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, sampleDetection({ plate: 'A1' }), { plate_crop: new Uint8Array(0), full_scene: new Uint8Array([1, 2, 3]) });
  insertDetection(buffer, sampleDetection({ plate: 'B2' }));
  const [first, second] = nextBatch(buffer);
  t.same(Object.keys(first?.images ?? {}), ['full_scene']);
  t.same(second?.images, {});
  t.equal(countRows(buffer, 'images'), 1);
});

t.test('the same detection_id again is a duplicate, while buffered and after upload', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const detection = sampleDetection({ id: 'cam-42' });
  const first = insertDetection(buffer, detection, sampleImages(100, 200));
  t.same(insertDetection(buffer, detection, sampleImages(100, 200)), { status: 'duplicate', seq: first.seq });
  t.equal(countRows(buffer, 'detections'), 1);

  t.equal(markUploaded(buffer, ['cam-42']), 1);
  t.equal(countRows(buffer, 'images'), 0, 'images go with the row');
  buffer.clock.advance(60_000);
  // A push camera re-delivering after our upload: a different plate text would not dedupe,
  // the id still does.
  t.same(insertDetection(buffer, { ...detection, plate: { text: 'OTHER1', confidence: 0.99 } }), { status: 'duplicate', seq: first.seq });
  t.equal(countRows(buffer, 'detections'), 0);
  t.equal(readCounters(buffer).duplicate_id, 2);
});

t.test('an invalid detection is refused before anything is written', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const bad = { ...sampleDetection(), plate: { text: 'ab-12', confidence: 0.5 } };
  t.throws(() => insertDetection(buffer, bad), { name: 'ApplianceError', code: 'invalid_detection' });
  const badTime = { ...sampleDetection(), timestamp: '2025-06-01 12:00' };
  t.throws(() => insertDetection(buffer, badTime), { name: 'ApplianceError', code: 'invalid_detection' });
  t.equal(countRows(buffer, 'detections'), 0);
});

t.test('a read-only buffer refuses inserts', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const reader = openBuffer({ file: buffer.file, clock: buffer.clock, log: memoryLog(), readonly: true });
  t.teardown(() => closeBuffer(reader));
  t.throws(() => insertDetection(reader, sampleDetection()), { name: 'ApplianceError', code: 'read_only' });
});

t.test('detections survive close and reopen', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const detection = sampleDetection();
  insertDetection(buffer, detection, sampleImages(10, 20));
  closeBuffer(buffer);
  const again = openBuffer({ file: buffer.file, clock: buffer.clock, log: memoryLog() });
  t.teardown(() => closeBuffer(again));
  t.same(nextBatch(again)[0]?.detection, detection);
  t.equal(again.sqlite.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(again.sqlite.pragma('foreign_keys', { simple: true }), 1);
  t.equal(again.sqlite.pragma('auto_vacuum', { simple: true }), 2, 'INCREMENTAL');
  t.equal(again.sqlite.pragma('synchronous', { simple: true }), 2, 'FULL by default');
  t.equal(again.sqlite.pragma('user_version', { simple: true }), 1);
});

t.test('a group commits together, dedupes within itself, and an invalid member writes nothing', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const at = Date.parse('2025-06-01T12:00:00.000Z');
  const results = insertDetections(buffer, [
    { detection: sampleDetection({ id: 'g1', plate: 'AA1', atMs: at, confidence: 0.5 }), images: sampleImages(10, 10) },
    { detection: sampleDetection({ id: 'g2', plate: 'AA1', atMs: at + 2000, confidence: 0.9 }) },
    { detection: sampleDetection({ id: 'g3', plate: 'BB2', atMs: at }) },
    { detection: sampleDetection({ id: 'g1', plate: 'AA1', atMs: at, confidence: 0.5 }) },
  ]);
  t.same(
    results.map((r) => r.status),
    ['stored', 'replaced', 'stored', 'duplicate'],
  );
  t.equal(results[1]?.seq, results[0]?.seq);
  t.same(
    nextBatch(buffer).map((item) => item.detection.detection_id),
    ['g2', 'g3'],
  );

  t.throws(
    () =>
      insertDetections(buffer, [
        { detection: sampleDetection({ id: 'ok', plate: 'CC3' }) },
        { detection: { ...sampleDetection(), camera: { id: 'x', mac: 'AA:BB' } } },
      ]),
    { name: 'ApplianceError', code: 'invalid_detection', message: /detection 1/ },
  );
  t.equal(countRows(buffer, 'detections'), 2, 'nothing of the failed group was written');
  t.same(insertDetections(buffer, []), []);
});
