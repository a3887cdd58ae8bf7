import { createHash, randomInt } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Image segment files (docs/ingest.md, "Image segments"): a batch's images are
 * appended to the current segment file in ONE write followed by ONE fdatasync, so the
 * critical path of an upload costs one sequential write and one flush instead of ~100
 * file creations with an fsync each. Appends that arrive while a flush is in progress are
 * grouped into the next write (group commit): four collectors uploading at once share
 * flushes instead of queueing for the disk one by one.
 *
 * Segment file: a sequence of records, each
 *   magic 'AIJ1' (u32 BE) | image size (u32 BE) | SHA-256 of the image (32 raw bytes) | image bytes
 * A record counts only when complete and its bytes hash to its SHA-256: a write torn by a
 * crash (never acknowledged, since acknowledgement waits for the flush) is ignored.
 */
export const RECORD_HEADER_BYTES = 40;
export const RECORD_MAGIC = 0x41494a31;
export const SEGMENT_SUFFIX = '.aij';

export interface JournalEntry {
  sha256: string;
  bytes: Uint8Array;
}

/** Where one image's bytes sit in a segment. */
export interface RecordLocation {
  sha256: string;
  size: number;
  /** Offset of the image bytes (after the header). */
  offset: number;
}

/**
 * Pure: the bytes to append for `entries` when the segment is `start` bytes long, as the
 * pieces to hand to ONE writev (headers from one small allocation, images as they are): a
 * concatenated copy was 4.3 MB of fresh memory per batch of 50, and such external memory is
 * what triggered V8's full collections on the hub (one per batch, measured).
 */
export function encodeRecords(entries: readonly JournalEntry[], start: number): { chunks: Uint8Array[]; byteLength: number; locations: RecordLocation[] } {
  const headers = Buffer.alloc(RECORD_HEADER_BYTES * entries.length);
  const chunks: Uint8Array[] = [];
  const locations: RecordLocation[] = [];
  let offset = start;
  for (const [i, entry] of entries.entries()) {
    const header = headers.subarray(i * RECORD_HEADER_BYTES, (i + 1) * RECORD_HEADER_BYTES);
    header.writeUInt32BE(RECORD_MAGIC, 0);
    header.writeUInt32BE(entry.bytes.byteLength, 4);
    header.write(entry.sha256, 8, 32, 'hex');
    chunks.push(header, entry.bytes);
    locations.push({ sha256: entry.sha256, size: entry.bytes.byteLength, offset: offset + RECORD_HEADER_BYTES });
    offset += RECORD_HEADER_BYTES + entry.bytes.byteLength;
  }
  return { chunks, byteLength: offset - start, locations };
}

/**
 * Pure: the complete, intact records of a segment's bytes, in order. Stops at the first
 * record that is cut short, has no magic, or whose bytes do not match its hash: everything
 * from there on was never acknowledged (a record is acknowledged only after the flush that
 * covers it and all records before it).
 */
export function scanRecords(segment: Uint8Array): { records: RecordLocation[]; validBytes: number } {
  const view = Buffer.from(segment.buffer, segment.byteOffset, segment.byteLength);
  const records: RecordLocation[] = [];
  let at = 0;
  while (at + RECORD_HEADER_BYTES <= view.length) {
    if (view.readUInt32BE(at) !== RECORD_MAGIC) break;
    const size = view.readUInt32BE(at + 4);
    const sha256 = view.toString('hex', at + 8, at + 40);
    const offset = at + RECORD_HEADER_BYTES;
    if (offset + size > view.length) break;
    const actual = createHash('sha256').update(view.subarray(offset, offset + size)).digest('hex');
    if (actual !== sha256) break;
    records.push({ sha256, size, offset });
    at = offset + size;
  }
  return { records, validBytes: at };
}

/**
 * Segment ids come from the clock (milliseconds x 1000 plus a random part), not from the
 * database, so creating a segment never waits for a connection an upload's transaction may
 * hold; ids stay below 2^53. A clash (same millisecond, same draw; or a clock set back) is
 * caught by the exclusive create and drawn again.
 */
export const newSegmentId = (): number => Date.now() * 1000 + randomInt(1000);

/** A new segment file, created exclusively (wx+: readable too) under a fresh id. */
async function createSegmentFile(dir: string): Promise<{ id: number; path: string; handle: FileHandle }> {
  for (let attempt = 0; ; attempt += 1) {
    const candidate = newSegmentId() + attempt;
    const path = join(dir, segmentName(candidate));
    try {
      return { id: candidate, path, handle: await open(path, 'wx+', 0o640) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 20) throw error;
    }
  }
}

export const segmentName = (seq: number): string => `${String(seq).padStart(16, '0')}${SEGMENT_SUFFIX}`;

/** The id in a segment file's name; legacy journals used 12 digits. */
export function segmentSeq(name: string): number | undefined {
  const match = /^(\d{12}|\d{16})\.aij$/.exec(name);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export interface Segment {
  /** Its image_segments id, also its file name. */
  seq: number;
  path: string;
  handle: FileHandle;
  /** Bytes durably appended so far. */
  size: number;
  /** When it was created (performance.now()), for sealing by age. */
  openedAt: number;
  /** No more appends. */
  sealed: boolean;
}

export interface JournalWriterOptions {
  dir: string;
  /** Called once per segment file created (the store registers it, in the background). */
  onCreated(segment: Segment): void;
  /** A segment takes no more appends past this size (default 64 MiB). */
  segmentBytes: number;
  /** A segment takes no more appends once this old (ms): retention compacts sealed segments only. */
  maxAgeMs: number;
  /** Called once per segment when it takes no more appends. */
  onSealed(segment: Segment): void;
}

export interface JournalWriter {
  /** Appends durably: resolves after the flush that covers these records. */
  append(entries: readonly JournalEntry[]): Promise<{ segment: Segment; locations: RecordLocation[] }>;
  /** Seals the current segment when nothing has been appended for `idleMs`. */
  sealIfIdle(idleMs: number): void;
  close(): Promise<void>;
}

interface Pending {
  entries: readonly JournalEntry[];
  resolve(value: { segment: Segment; locations: RecordLocation[] }): void;
  reject(error: unknown): void;
}

export function openJournalWriter(options: JournalWriterOptions): JournalWriter {
  let current: Segment | undefined;
  // The next segment, created (and its directory entry flushed) ahead of need, so rotating
  // never puts a file creation and a directory fsync on an upload's critical path.
  let spare: Promise<Segment> | undefined;
  let queue: Pending[] = [];
  let flushing: Promise<void> | undefined;
  let lastAppendAt = 0;
  let closed = false;

  const createSegment = async (): Promise<Segment> => {
    const { id: seq, path, handle } = await createSegmentFile(options.dir);
    await syncDirectory(options.dir);
    const segment = { seq, path, handle, size: 0, openedAt: performance.now(), sealed: false };
    options.onCreated(segment);
    return segment;
  };
  const prepareSpare = (): void => {
    spare = createSegment();
    spare.catch(() => undefined); // observed when taken
  };
  const seal = (segment: Segment): void => {
    segment.sealed = true;
    if (current === segment) current = undefined;
    options.onSealed(segment);
  };
  const segmentFor = async (): Promise<Segment> => {
    if (current && current.size < options.segmentBytes && performance.now() - current.openedAt < options.maxAgeMs) return current;
    if (current) seal(current);
    const next = spare ?? createSegment();
    spare = undefined;
    try {
      current = await next;
      // Its age counts from now: a spare may have waited long for its turn.
      current.openedAt = performance.now();
    } finally {
      prepareSpare();
    }
    return current;
  };

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        const segment = await segmentFor();
        const { chunks, byteLength, locations } = encodeRecords(
          group.flatMap((p) => p.entries),
          segment.size,
        );
        await writeFully(segment.handle, chunks, byteLength, segment.size);
        await segment.handle.datasync();
        // Advanced only after the flush: a failed write is overwritten by the next one.
        segment.size += byteLength;
        lastAppendAt = performance.now();
        let at = 0;
        for (const pending of group) {
          pending.resolve({ segment, locations: locations.slice(at, at + pending.entries.length) });
          at += pending.entries.length;
        }
      } catch (error) {
        for (const pending of group) pending.reject(error);
        // A write or flush that failed (EIO, disk full) may have left the file in any state
        // past its acknowledged size: the next batch goes to a fresh segment.
        if (current) seal(current);
      }
    }
  };

  return {
    append(entries) {
      if (closed) return Promise.reject(new Error('image journal is closed'));
      return new Promise((resolve, reject) => {
        queue.push({ entries, resolve, reject });
        flushing ??= flush().finally(() => {
          flushing = undefined;
        });
      });
    },
    sealIfIdle(idleMs) {
      if (!current || flushing || current.size === 0) return;
      if (performance.now() - lastAppendAt < idleMs) return;
      seal(current);
    },
    async close() {
      closed = true;
      await flushing;
      const pendingSpare = spare;
      spare = undefined;
      const unused = await pendingSpare?.catch(() => undefined);
      if (unused) {
        // Never written: remove it (its row, sealed by the next start, is dropped by compaction).
        await unused.handle.close();
        await unlink(unused.path).catch(() => undefined);
      }
    },
  };
}

/** All of `chunks` at `position`, in as few writev calls as the kernel allows. */
export async function writeFully(handle: FileHandle, chunks: readonly Uint8Array[], byteLength: number, position: number): Promise<void> {
  let pending = [...chunks];
  let written = 0;
  while (written < byteLength) {
    const { bytesWritten } = await handle.writev(pending, position + written);
    if (bytesWritten === 0) throw new Error('image journal write made no progress');
    written += bytesWritten;
    pending = skipBytes(pending, bytesWritten);
  }
}

/** Pure: what is left of `chunks` once their first `count` bytes are written. */
export function skipBytes(chunks: readonly Uint8Array[], count: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  let skip = count;
  for (const chunk of chunks) {
    if (skip >= chunk.byteLength) {
      skip -= chunk.byteLength;
      continue;
    }
    rest.push(skip > 0 ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
  return rest;
}

/** Makes a directory's entries (a created or renamed file) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
