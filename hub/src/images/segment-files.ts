import { createHash, randomInt } from 'node:crypto';
import { constants } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createDirectAppender, MAX_STAGED_BYTES, type DirectAppender } from './direct-append.ts';
import { writeFully } from './write-fully.ts';

/**
 * Image segment files (docs/ingest.md, "Image segments"): a batch's images are
 * appended to the current segment file in ONE write followed by ONE fdatasync, so the
 * critical path of an upload costs one sequential write and one flush instead of ~100
 * file creations with an fsync each. Appends that arrive while a flush is in progress are
 * grouped into the next write (group commit): four collectors uploading at once share
 * flushes instead of queueing for the disk one by one.
 *
 * Appends bypass the page cache where the file system allows it (direct-append.ts).
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
    const actual = createHash('sha256')
      .update(view.subarray(offset, offset + size))
      .digest('hex');
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

/** Where the platform has no O_DIRECT (not Linux) the constant is absent: page cache only. */
const O_DIRECT: number | undefined = constants.O_DIRECT;
const CREATE_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL;

/**
 * A new segment file, created exclusively (readable too) under a fresh id; with O_DIRECT
 * when `direct` and the file system takes the flag (some refuse it at open: EINVAL).
 */
async function createSegmentFile(dir: string, direct: boolean): Promise<{ id: number; path: string; handle: FileHandle; direct: boolean }> {
  for (let attempt = 0; ; attempt += 1) {
    const candidate = newSegmentId() + attempt;
    const path = join(dir, segmentName(candidate));
    try {
      if (direct && O_DIRECT !== undefined) {
        const handle = await open(path, CREATE_FLAGS | O_DIRECT, 0o640).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EINVAL') return undefined;
          throw error;
        });
        if (handle) return { id: candidate, path, handle, direct: true };
      }
      return { id: candidate, path, handle: await open(path, CREATE_FLAGS, 0o640), direct: false };
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
  /** Appends bypass the page cache (O_DIRECT). */
  direct: boolean;
  /** Direct appends: the bytes of the last, partial block (size % BLOCK), rewritten by the next append. */
  tail: Uint8Array;
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
  /** Append with O_DIRECT where the file system allows it (default true). */
  directIo?: boolean;
  /** Told once when direct appends were wanted and the file system refused them. */
  onDirectIoRefused?(reason: string): void;
  /** Tests: stands in for the O_DIRECT appender (one that refuses, to prove the fallback). */
  directAppender?: DirectAppender;
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
  const queue: Pending[] = [];
  let flushing: Promise<void> | undefined;
  let lastAppendAt = 0;
  let closed = false;
  let directIo = options.directIo ?? true;
  const direct = options.directAppender ?? createDirectAppender();
  const refuseDirectIo = (reason: string): void => {
    if (!directIo) return;
    directIo = false;
    options.onDirectIoRefused?.(reason);
  };

  const createSegment = async (): Promise<Segment> => {
    const created = await createSegmentFile(options.dir, directIo);
    if (directIo && !created.direct) refuseDirectIo('the file system refuses O_DIRECT at open');
    await syncDirectory(options.dir);
    const { id: seq, path, handle } = created;
    const segment: Segment = { seq, path, handle, size: 0, direct: created.direct, tail: new Uint8Array(0), openedAt: performance.now(), sealed: false };
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

  /** Writes and flushes; resolves to the segment's new tail (direct appends). */
  const appendTo = async (segment: Segment, chunks: readonly Uint8Array[], byteLength: number): Promise<Uint8Array> => {
    if (segment.direct && directIo) {
      const tail = await direct.write(segment.handle, segment.size, segment.tail, chunks, byteLength);
      if (tail !== 'unsupported') {
        await segment.handle.datasync();
        return tail;
      }
      refuseDirectIo('no aligned direct write was taken (EINVAL)');
    }
    if (segment.direct) {
      // Direct appends refused: the same file through the page cache from here on.
      await segment.handle.close();
      segment.handle = await open(segment.path, 'r+');
      segment.direct = false;
    }
    await writeFully(segment.handle, chunks, byteLength, segment.size);
    await segment.handle.datasync();
    return new Uint8Array(0);
  };

  /** The next group: every waiting append, up to what one staged write holds (at least one). */
  const takeGroup = (): Pending[] => {
    let bytes = 0;
    let count = 0;
    for (const pending of queue) {
      const size = pending.entries.reduce((sum, e) => sum + RECORD_HEADER_BYTES + e.bytes.byteLength, 0);
      if (count > 0 && bytes + size > MAX_STAGED_BYTES) break;
      bytes += size;
      count += 1;
    }
    return queue.splice(0, count);
  };

  /**
   * Runs until the queue is empty. `flushing` is cleared in the same tick as the last look
   * at the queue: cleared later (in a `.finally`), an append made by a caller resumed in
   * between saw a flush still "running", queued, and waited forever.
   */
  const flush = async (): Promise<void> => {
    await Promise.resolve(); // `flushing` is assigned before this can end
    for (;;) {
      if (queue.length === 0) {
        flushing = undefined;
        return;
      }
      const group = takeGroup();
      try {
        const segment = await segmentFor();
        const { chunks, byteLength, locations } = encodeRecords(
          group.flatMap((p) => p.entries),
          segment.size,
        );
        const tail = await appendTo(segment, chunks, byteLength);
        // Advanced only after the flush: a failed write is overwritten by the next one.
        segment.size += byteLength;
        segment.tail = tail;
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
        flushing ??= flush();
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

/** Makes a directory's entries (a created or renamed file) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
