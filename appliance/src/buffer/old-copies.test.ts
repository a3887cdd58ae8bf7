import t from 'tap';
import { insertDetection, seenDetectionIds } from './insert.ts';
import { nextBatch, markInFlight, markUploaded, releaseInFlight } from './batch.ts';
import { enforceRetention } from './retention.ts';
import { readCounters } from './counters.ts';
import { closeBuffer, openBuffer } from './open.ts';
import { countRows, memoryLog, openTestBuffer, sampleDetection } from './buffer.test-helper.ts';
import type { DetectionBuffer } from './types.ts';

/**
 * Issue 17: a vendor_a pull camera re-reads a plate within 1 s (two ids) and later appends
 * old copies of either read to its pages. Whatever the buffer decided about a read, a copy
 * of it must never become a second detection at the hub, however late it comes.
 */

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Uploads everything pending, as the uplink does when the hub lists the ids `stored`. */
function uploadAll(buffer: DetectionBuffer): string[] {
  const ids = nextBatch(buffer).map((row) => row.detection.detection_id);
  markInFlight(buffer, ids);
  markUploaded(buffer, ids);
  return ids;
}

t.test("a dropped re-read's old copy arriving 11 minutes, then 3 days later is still a duplicate", async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const kept = sampleDetection({ id: 'BMK0477-1', plate: 'BMK0477', atMs: T0, confidence: 0.9 });
  const reRead = sampleDetection({ id: 'BMK0477-2', plate: 'BMK0477', atMs: T0 + 800, confidence: 0.8 });
  t.equal(insertDetection(buffer, kept).status, 'stored');
  t.equal(insertDetection(buffer, reRead).status, 'duplicate', 'the re-read is dropped by the 30 s window');
  t.same(uploadAll(buffer), ['BMK0477-1'], 'the hub got one detection of the pass');

  for (const [label, later] of [
    ['11 minutes', 11 * MINUTE],
    ['3 days', 3 * DAY - 11 * MINUTE],
  ] as const) {
    buffer.clock.advance(later);
    enforceRetention(buffer); // the retention job runs in between, as in the appliance
    t.equal(insertDetection(buffer, reRead).status, 'duplicate', `old copy of the dropped read after ${label}`);
    t.equal(insertDetection(buffer, kept).status, 'duplicate', `old copy of the kept read after ${label}`);
    t.same(nextBatch(buffer), [], `nothing new to upload after ${label}`);
  }
  t.same([...seenDetectionIds(buffer, ['BMK0477-1', 'BMK0477-2', 'never'])].sort(), ['BMK0477-1', 'BMK0477-2'], 'a runner can ask before fetching images');
});

t.test("a replaced read's old copy, days later, is a duplicate too", async (t) => {
  const buffer = openTestBuffer(t.teardown);
  const weak = sampleDetection({ id: 'w', plate: 'DJW9189', atMs: T0, confidence: 0.5 });
  const strong = sampleDetection({ id: 's', plate: 'DJW9189', atMs: T0 + 500, confidence: 0.9 });
  insertDetection(buffer, weak);
  t.equal(insertDetection(buffer, strong).status, 'replaced');
  t.same(uploadAll(buffer), ['s']);
  buffer.clock.advance(5 * DAY);
  enforceRetention(buffer);
  t.equal(insertDetection(buffer, weak).status, 'duplicate', 'the weaker read the hub never saw');
  t.equal(countRows(buffer, 'detections'), 0);
});

t.test('the memory survives a restart: it is in the file, not the process', async (t) => {
  const first = openTestBuffer(t.teardown);
  insertDetection(first, sampleDetection({ id: 'a', atMs: T0, confidence: 0.9 }));
  insertDetection(first, sampleDetection({ id: 'b', atMs: T0 + 300, confidence: 0.4 }));
  uploadAll(first);
  closeBuffer(first);
  const clock = first.clock;
  clock.advance(2 * DAY);
  const again = openBuffer({ file: first.file, clock, log: memoryLog() });
  t.teardown(() => closeBuffer(again));
  t.equal(insertDetection(again, sampleDetection({ id: 'b', atMs: T0 + 300, confidence: 0.4 })).status, 'duplicate');
});

t.test('a read captured before the horizon is refused with a counter; one just inside is stored', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  buffer.clock.set(T0 + 7 * DAY + 1);
  t.same(insertDetection(buffer, sampleDetection({ id: 'old', atMs: T0 })), { status: 'refused', seq: 0 });
  t.equal(insertDetection(buffer, sampleDetection({ id: 'edge', atMs: T0 + 1 })).status, 'stored', 'exactly 7 days old');
  t.equal(readCounters(buffer).refused_too_old, 1);
  t.equal(countRows(buffer, 'detections'), 1);
  t.same([...seenDetectionIds(buffer, ['old'])], [], 'a refused read is not remembered as delivered');
});

t.test('horizons: every copy is either remembered or refused (memory outlasts the capture horizon)', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  t.ok(buffer.limits.recentReadsKeepMs >= buffer.limits.maxCaptureAgeMs + DAY, 'a day of margin for camera clocks running ahead');
  t.ok(buffer.limits.maxCaptureAgeMs >= buffer.limits.retentionMs, 'at least as long as the buffer keeps data');
  // A read remembered at T0 is purged only after 8 days; by then a copy captured at T0 is refused.
  insertDetection(buffer, sampleDetection({ id: 'x', atMs: T0 }));
  uploadAll(buffer);
  buffer.clock.advance(7 * DAY + MINUTE);
  enforceRetention(buffer);
  t.equal(insertDetection(buffer, sampleDetection({ id: 'x', atMs: T0 })).status, 'refused', 'after 7 days: refused');
  buffer.clock.advance(DAY);
  enforceRetention(buffer);
  t.equal(countRows(buffer, 'recent_reads'), 0, 'purged by the retention job after 8 days');
});

t.test('a row that was sent is never rewritten under another id, even when pending again', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, sampleDetection({ id: 'sent', plate: 'MB45XXK', atMs: T0, confidence: 0.5 }));
  const [row] = nextBatch(buffer);
  markInFlight(buffer, ['sent']);
  // The hub may have stored it before the answer was lost (timeout): back to pending.
  releaseInFlight(buffer, ['sent'], 'timeout');
  t.equal(insertDetection(buffer, sampleDetection({ id: 'better', plate: 'MB45XXK', atMs: T0 + 400, confidence: 0.95 })).status, 'duplicate');
  const [again] = nextBatch(buffer);
  t.equal(again?.detection.detection_id, 'sent', 'the id the hub may hold is kept');
  t.equal(again?.seq, row?.seq);
  t.equal(readCounters(buffer).dedupe_dropped_better_late, 1);
});

t.test('the same after a crash mid-upload: rows recovered from in_flight count as sent', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, sampleDetection({ id: 'sent', plate: 'ZZY941', atMs: T0, confidence: 0.5 }));
  markInFlight(buffer, ['sent']);
  closeBuffer(buffer); // the process dies with the row in flight
  const again = openBuffer({ file: buffer.file, clock: buffer.clock, log: memoryLog() });
  t.teardown(() => closeBuffer(again));
  t.equal(insertDetection(again, sampleDetection({ id: 'better', plate: 'ZZY941', atMs: T0 + 400, confidence: 0.95 })).status, 'duplicate');
  t.equal(nextBatch(again)[0]?.detection.detection_id, 'sent');
});

t.test('over the disk cap with no detection left, the oldest remembered reads go, counted', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  for (let i = 0; i < 3000; i += 1) insertDetection(buffer, sampleDetection({ id: `r${i}`, plate: `P${i}`, atMs: T0 }));
  uploadAll(buffer);
  while (nextBatch(buffer).length > 0) uploadAll(buffer);
  const used = enforceRetention(buffer).usedBytes;
  const capped = openBuffer({ file: buffer.file, clock: buffer.clock, log: memoryLog(), limits: { diskCapBytes: used - 64 * 1024 } });
  t.teardown(() => closeBuffer(capped));
  const result = enforceRetention(capped);
  t.ok(result.evictedReads > 0, 'some reads forgotten');
  t.ok(result.usedBytes <= used - 64 * 1024, 'back under the cap');
  t.equal(readCounters(capped).evicted_reads, result.evictedReads);
  t.same([...seenDetectionIds(capped, ['r2999'])], ['r2999'], 'the newest are kept');
});
