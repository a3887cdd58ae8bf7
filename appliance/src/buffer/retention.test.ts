import t from 'tap';
import type { Test } from 'tap';
import { statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { insertDetection } from './insert.ts';
import { nextBatch } from './batch.ts';
import { enforceRetention } from './retention.ts';
import { databaseUsedBytes } from './stats.ts';
import { readCounters } from './counters.ts';
import { openBuffer, closeBuffer } from './open.ts';
import { countRows, memoryLog, openTestBuffer, sampleDetection } from './buffer.test-helper.ts';
import type { BufferLimits } from './types.ts';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const DAY = 24 * 3600_000;
const nth = (i: number) => sampleDetection({ id: `d${i}`, plate: `P${i}`, atMs: T0 + i * 60_000 });

t.test('rows received more than 7 days ago expire; younger ones stay', async (t) => {
  const buffer = openTestBuffer(t.teardown);
  insertDetection(buffer, nth(0), { plate_crop: randomBytes(100) });
  buffer.clock.advance(3 * DAY);
  insertDetection(buffer, nth(1), { plate_crop: randomBytes(100) });

  buffer.clock.set(T0 + 7 * DAY);
  t.equal(enforceRetention(buffer).expired, 0, 'exactly 7 days is still kept');
  buffer.clock.set(T0 + 7 * DAY + 1);
  const result = enforceRetention(buffer);
  t.equal(result.expired, 1);
  t.same(
    nextBatch(buffer).map((item) => item.detection.detection_id),
    ['d1'],
  );
  t.equal(countRows(buffer, 'images'), 1, 'its images went with it');
  t.equal(readCounters(buffer).evicted_age, 1);
  t.equal(enforceRetention(buffer, new Date(T0 + 10 * DAY + 1)).expired, 1, 'an explicit now is honoured');
  t.equal(countRows(buffer, 'detections'), 0);
});

/** Fills a buffer with 30 detections of ~100 KB, closes it, reopens it with `limits`. */
function filledThenReopened(t: Test, limits: Partial<BufferLimits>) {
  const first = openTestBuffer(t.teardown);
  for (let i = 0; i < 30; i += 1) insertDetection(first, nth(i), { plate_crop: randomBytes(20 * 1024), full_scene: randomBytes(80 * 1024) });
  const used = databaseUsedBytes(first);
  closeBuffer(first);
  const buffer = openBuffer({ file: first.file, clock: first.clock, log: memoryLog(), limits });
  t.teardown(() => closeBuffer(buffer));
  return { buffer, used, file: first.file };
}

t.test('over the disk cap, the oldest images go first and every row stays', async (t) => {
  const probe = filledThenReopened(t, {});
  const cap = Math.floor(probe.used / 2);
  const { buffer, used } = filledThenReopened(t, { diskCapBytes: cap });
  t.ok(used > cap);
  const result = enforceRetention(buffer);
  t.ok(result.usedBytes <= cap, `${result.usedBytes} <= ${cap}`);
  t.equal(result.evictedDetections, 0);
  t.ok(result.evictedImages > 0);
  t.equal(countRows(buffer, 'detections'), 30, 'metadata all kept');

  const batch = nextBatch(buffer, { maxItems: 30, maxBytes: Number.MAX_SAFE_INTEGER });
  const withImages = batch.map((item) => Object.keys(item.images).length > 0);
  const firstKept = withImages.indexOf(true);
  t.ok(firstKept > 0, 'the oldest lost their images');
  t.same(
    withImages.slice(firstKept),
    withImages.slice(firstKept).map(() => true),
    'newer ones kept theirs',
  );
  t.equal(batch[0]?.sizeBytes, Buffer.byteLength(JSON.stringify(batch[0]?.detection)), 'size no longer counts evicted images');
  t.equal(readCounters(buffer).evicted_images, result.evictedImages);
});

t.test('metadata rows go only when no image is left, and space returns to the file system', async (t) => {
  const { buffer, file } = filledThenReopened(t, { diskCapBytes: 1 });
  const sizeBefore = statSync(file).size;
  const result = enforceRetention(buffer);
  t.equal(result.evictedImages, 60, 'all images first');
  t.equal(result.evictedDetections, 30, 'then the rows');
  t.match(readCounters(buffer), { evicted_images: 60, evicted_detections: 30 });
  closeBuffer(buffer);
  t.ok(statSync(file).size < sizeBefore / 10, `file shrank: ${sizeBefore} -> ${statSync(file).size}`);
});

t.test('under the cap nothing is evicted', async (t) => {
  const { buffer } = filledThenReopened(t, { diskCapBytes: 1024 * 1024 * 1024 });
  const result = enforceRetention(buffer);
  t.match(result, { expired: 0, evictedImages: 0, evictedDetections: 0 });
  t.equal(countRows(buffer, 'images'), 60);
});
