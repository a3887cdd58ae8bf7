import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImageLocation } from './locations.ts';
import { ifMissing } from './missing.ts';
import { RECORD_HEADER_BYTES, RECORD_MAGIC, segmentName } from './segment-files.ts';

/**
 * Reads one image out of its segment file and checks it before anyone sees it: the record
 * header must be intact and name the same hash and size, and the bytes must hash to it.
 * Opens the file per read (reads are rare: dashboard, bot, exports), so a segment that
 * compaction unlinks is never held open here for long; `missing` tells the caller to look
 * the location up again (compaction moved it).
 */
export type SegmentRead = { ok: true; bytes: Buffer } | { ok: false; reason: 'missing' | 'damaged' };

export async function readFromSegment(segmentsDir: string, location: ImageLocation): Promise<SegmentRead> {
  const handle = await ifMissing(open(join(segmentsDir, segmentName(location.segment)), 'r'), undefined);
  if (!handle) return { ok: false, reason: 'missing' };
  try {
    const bytes = await readRecord(handle, location);
    return bytes ? { ok: true, bytes } : { ok: false, reason: 'damaged' };
  } finally {
    await handle.close();
  }
}

/** The image bytes of the record at `location` in an open segment, or undefined when it is cut short or does not match. */
export async function readRecord(handle: FileHandle, location: ImageLocation): Promise<Buffer | undefined> {
  const record = Buffer.alloc(RECORD_HEADER_BYTES + location.size);
  const { bytesRead } = await handle.read(record, 0, record.length, location.offset - RECORD_HEADER_BYTES);
  if (bytesRead !== record.length || !recordMatches(record, location)) return undefined;
  return record.subarray(RECORD_HEADER_BYTES);
}

/** Pure: does this header-plus-bytes record hold exactly the image the location names? */
function recordMatches(record: Buffer, location: ImageLocation): boolean {
  if (record.length !== RECORD_HEADER_BYTES + location.size) return false;
  if (record.readUInt32BE(0) !== RECORD_MAGIC || record.readUInt32BE(4) !== location.size) return false;
  if (record.toString('hex', 8, RECORD_HEADER_BYTES) !== location.sha256) return false;
  return createHash('sha256').update(record.subarray(RECORD_HEADER_BYTES)).digest('hex') === location.sha256;
}
