import t from 'tap';
import { insertDetection } from './insert.ts';
import { markInFlight, recordFailure } from './batch.ts';
import { pendingStats, oldestPendingAge, bufferStats } from './stats.ts';
import { getCursor, setCursor } from './cursors.ts';
import { incrementCounter } from './counters.ts';
import { openBuffer, closeBuffer } from './open.ts';
import { memoryLog, openTestBuffer, sampleDetection } from './buffer.test-helper.ts';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');

t.test('pending stats and per-camera diagnostics', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  t.same(pendingStats(buffer), { count: 0, bytes: 0, oldestReceivedMs: null });
  t.equal(oldestPendingAge(buffer), null);

  const gate = { mac: 'aaaaaaaaaaaa', cameraId: 'gate' };
  const yard = { mac: 'bbbbbbbbbbbb', cameraId: 'yard' };
  insertDetection(buffer, sampleDetection({ ...gate, id: 'g1', plate: 'G1' }), { plate_crop: new Uint8Array(1000) });
  buffer.clock.advance(2000);
  insertDetection(buffer, sampleDetection({ ...gate, id: 'g2', plate: 'G2' }), { plate_crop: new Uint8Array(500) });
  insertDetection(buffer, sampleDetection({ ...yard, id: 'y1', plate: 'Y1' }));
  insertDetection(buffer, sampleDetection({ ...yard, id: 'y2', plate: 'Y2' }));
  insertDetection(buffer, sampleDetection({ ...yard, id: 'y1', plate: 'Y1' }));
  markInFlight(buffer, ['g1']);
  recordFailure(buffer, [{ detectionId: 'y2', reason: 'bad' }]);
  incrementCounter(buffer.db, 'camera_errors.yard', 3);
  buffer.clock.advance(5000);

  const pending = pendingStats(buffer);
  t.equal(pending.count, 2);
  t.equal(pending.oldestReceivedMs, T0 + 2000, 'g1 is in flight, so g2/y1 are the oldest pending');
  t.ok(pending.bytes > 500);
  t.equal(oldestPendingAge(buffer), 5000);

  const stats = bufferStats(buffer);
  t.same(stats.states, { pending: 2, in_flight: 1 });
  t.match(stats.cameras, [
    { cameraMac: 'aaaaaaaaaaaa', cameraId: 'gate', pending: 1, inFlight: 1, oldestPendingReceivedMs: T0 + 2000 },
    { cameraMac: 'bbbbbbbbbbbb', cameraId: 'yard', pending: 1, inFlight: 0, oldestPendingReceivedMs: T0 + 2000 },
  ]);
  t.equal(stats.cameras.length, 2);
  t.equal(stats.rejected, 1);
  t.equal(stats.oldestPendingAgeMs, 5000);
  t.equal(stats.bytes.images, 1500);
  t.equal(
    stats.bytes.buffered,
    stats.cameras.reduce((sum, c) => sum + c.bytes, 0),
  );
  t.ok(stats.bytes.databaseUsed > 0 && stats.bytes.databaseUsed <= stats.bytes.databaseFile);
  t.same(stats.counters, { 'camera_errors.yard': 3, duplicate_id: 1, rejected: 1 });
});

t.test('cursors remember a pull runner position across reopen', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  t.equal(getCursor(buffer, 'vendor_a:gate'), null);
  setCursor(buffer, 'vendor_a:gate', '1041');
  buffer.clock.advance(1000);
  setCursor(buffer, 'vendor_a:gate', '1042');
  setCursor(buffer, 'vendor_b:yard', '2025-06-01T12:00:00.000Z');
  closeBuffer(buffer);
  const again = openBuffer({ file: buffer.file, clock: buffer.clock, log: memoryLog() });
  t.teardown(() => closeBuffer(again));
  t.equal(getCursor(again, 'vendor_a:gate'), '1042');
  t.equal(getCursor(again, 'vendor_b:yard'), '2025-06-01T12:00:00.000Z');
  t.same(again.sqlite.prepare("SELECT updated_ms FROM cursors WHERE key = 'vendor_a:gate'").get(), { updated_ms: T0 + 1000 });
});
