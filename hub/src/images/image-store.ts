import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, open as openFile, readdir, readFile, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DbSession } from '../db/session.ts';
import { compactSegments, type CompactionReport } from './compaction.ts';
import { isSha256, openImageTree, type ImageTree } from './image-tree.ts';
import { ifMissing } from './missing.ts';
import { forgetImages, locateImage, registerOpenSegment, sealLeftoverSegments, sealSegment, type ImageLocation } from './locations.ts';
import { readFromSegment } from './segment-reader.ts';
import {
  newSegmentId,
  openJournalWriter,
  scanRecords,
  segmentSeq,
  syncDirectory,
  type JournalEntry,
  type JournalWriter,
  type Segment,
} from './segment-files.ts';
import { isUuid } from '@alpr/shared/validation/uuid';

/**
 * The hub's image store (docs/ingest.md, "Image segments"; ADR 0004). An upload's images
 * are appended to the current segment file, one write and one fdatasync per batch shared
 * by concurrent uploads, and stay there: the caller indexes the returned locations in its
 * own transaction (locations.ts `indexImages`), so a committed detection names a readable
 * image by construction and no image is ever written twice. Reads look the hash up, read
 * the record and check its hash; images stored before segments (the content-addressed tree
 * `<root>/<aa>/<bb>/<sha256>.jpg`) are read from the tree. Retention forgets locations in
 * its transaction and compaction (compaction.ts) then deletes the bytes.
 *
 * Only the hub process appends (its first append seals the segments a previous run left
 * open); the worker and the retention command only read, forget and compact.
 */
export interface ImageStore {
  /** Makes every image durable before resolving; `sha256` must be the bytes' hash. Index the result in the same transaction. */
  putBatch(images: readonly JournalEntry[]): Promise<ImageLocation[]>;
  get(sha256: string): Promise<Uint8Array | undefined>;
  /**
   * Retention (docs/retention.md), in its transaction: forgets every location of these
   * images and deletes any pre-segment tree file. Returns the hashes that were stored;
   * their bytes leave the segments at the next compaction.
   */
  remove(tx: DbSession, hashes: readonly string[]): Promise<Set<string>>;
  /** Deletes the bytes of removed images and garbage from the segments (after retention's commit). */
  compact(): Promise<CompactionReport>;
  /** Resolves once a pre-segment journal left by an older hub is replayed into the tree. */
  ready(): Promise<void>;
  /** Finishes opening and the appends in flight; the current segment stays open for the next start to seal. */
  close(): Promise<void>;
}

export interface ImageStoreOptions {
  db: DbSession;
  /** A segment takes appends up to this size (default 64 MiB, ~15 batches of 50 with images). */
  segmentBytes?: number;
  /** A segment is sealed after this long without appends (default 10 min)... */
  idleSealMs?: number;
  /** ...or once this old (default 1 day): retention compacts sealed segments only. */
  maxSegmentAgeMs?: number;
  /** A sealed segment with no live image is deleted once sealed this long (default 1 h; compaction.ts). */
  graceMs?: number;
  /** Background failures (sealing a segment's row): logged by the caller. */
  onError?: (error: unknown) => void;
  /** A failed registry update is tried again after this long (default 5 s). */
  registryRetryMs?: number;
  /** Append images with O_DIRECT where the file system allows it (default true; direct-append.ts). */
  directIo?: boolean;
  /** Conditions worth a warning that are not failures (direct appends refused): logged by the caller. */
  onWarning?: (message: string) => void;
}

export const SEGMENTS_FOLDER = 'segments';
const REGISTRY_RETRY_MS = 5_000;
/** Names this image folder in the database (image_segments.store, image_locations.store). */
export const STORE_ID_FILE = 'store-id';
/** Where hubs before ADR 0004 kept images waiting for the tree; replayed once at start. */
export const LEGACY_JOURNAL_FOLDER = 'journal';

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export function openImageStore(root: string, options: ImageStoreOptions): ImageStore {
  const { db } = options;
  const tree = openImageTree(root);
  const segmentsDir = join(root, SEGMENTS_FOLDER);
  const onError = options.onError ?? (() => undefined);
  const idleSealMs = options.idleSealMs ?? 10 * 60_000;
  const open = new Set<Segment>();
  let writer: Promise<JournalWriter> | undefined;

  /** Resolves to this folder's store id once the folder is usable. Files only: no database. */
  const ready = (async () => {
    await mkdir(segmentsDir, { recursive: true });
    const store = await storeIdentity(root);
    await replayLegacyJournal(join(root, LEGACY_JOURNAL_FOLDER), tree);
    return store;
  })();
  ready.catch(() => undefined); // every operation awaits it and reports the failure

  /**
   * The writer never waits for the database: on PGlite an upload's transaction holds the
   * only connection while it waits for its images. Registering and sealing segments run in
   * the background; what a crash loses of them, the next start's registration makes up.
   */
  const startWriter = async (): Promise<JournalWriter> => {
    const store = await ready;
    const leftovers = (await readdir(segmentsDir)).map(segmentSeq).filter((id): id is number => id !== undefined);
    const startedAt = newSegmentId();
    background(() => sealLeftoverSegments(db, store, leftovers, startedAt));
    return openJournalWriter({
      dir: segmentsDir,
      onCreated: (segment) => background(() => registerOpenSegment(db, store, segment.seq)),
      segmentBytes: options.segmentBytes ?? 64 * 1024 * 1024,
      maxAgeMs: options.maxSegmentAgeMs ?? 24 * 3600_000,
      directIo: options.directIo,
      onDirectIoRefused: (reason) => options.onWarning?.(`image segments are written through the page cache: ${reason}`),
      onSealed: (segment) => {
        background(() => sealSegment(db, store, segment.seq));
        // Reads open the file themselves; this descriptor only served appends.
        open.delete(segment);
        segment.handle.close().catch(() => undefined);
      },
    });
  };
  /**
   * Registry updates, in order, off the uploads' path; a failed one (the database
   * restarting) is retried every REGISTRY_RETRY_MS until it lands or the store closes
   * (the next start then registers and seals every file on disk).
   */
  let registry: Promise<void> = Promise.resolve();
  let closing = false;
  const background = (step: () => Promise<void>): void => {
    registry = registry.then(async () => {
      for (;;) {
        try {
          return await step();
        } catch (error) {
          onError(error);
          if (closing) return;
          await sleep(options.registryRetryMs ?? REGISTRY_RETRY_MS, undefined, { ref: false });
        }
      }
    });
  };
  const sealTimer = setInterval(
    () => {
      void writer?.then((w) => w.sealIfIdle(idleSealMs)).catch(() => undefined);
    },
    Math.min(60_000, idleSealMs),
  );
  sealTimer.unref();

  const read = async (store: string, sha256: string): Promise<Uint8Array | undefined> => {
    // Twice: compaction may move the record between the lookup and the read.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const location = await locateImage(db, store, sha256);
      // Only a copy in another hub process's folder: not readable here.
      if (!location || location.store !== store) break;
      const result = await readFromSegment(segmentsDir, location);
      if (result.ok) return result.bytes;
      if (result.reason === 'damaged') {
        onError(new Error(`image ${sha256} in segment ${location.segment} at ${location.offset} does not match its hash`));
        break;
      }
    }
    return tree.read(sha256);
  };

  return {
    ready: () => ready.then(() => undefined),
    async putBatch(images) {
      const unique = [...new Map(images.map((i) => [i.sha256, i])).values()];
      if (unique.length === 0) return [];
      const store = await ready;
      if (!writer) {
        const starting = startWriter();
        writer = starting;
        // A failed start (a transient readdir error) is not kept: the next upload tries again.
        starting.catch(() => {
          if (writer === starting) writer = undefined;
        });
      }
      const { segment, locations } = await (await writer).append(unique);
      if (!segment.sealed) open.add(segment);
      return locations.map((l) => ({ sha256: l.sha256, store, segment: segment.seq, offset: l.offset, size: l.size }));
    },
    async get(sha256) {
      if (!isSha256(sha256)) return undefined;
      return read(await ready, sha256);
    },
    async remove(tx, hashes) {
      await ready;
      const valid = hashes.filter(isSha256);
      const removed = await forgetImages(tx, valid);
      for (const hash of valid) if (await tree.remove(hash)) removed.add(hash);
      return removed;
    },
    async compact() {
      const store = await ready;
      await registry;
      return compactSegments(db, store, segmentsDir, { graceMs: options.graceMs ?? 3600_000 });
    },
    async close() {
      clearInterval(sealTimer);
      closing = true;
      // Opening may still be writing the folder's store id (a store closed at once): a caller
      // that removes the folder next must find nothing more being written into it.
      await ready.catch(() => undefined);
      const w = await writer?.catch(() => undefined);
      await w?.close();
      await registry;
      for (const segment of open) await segment.handle.close().catch(() => undefined);
      open.clear();
    },
  };
}

/**
 * This folder's id (a UUID in `<root>/store-id`), made once: written to a temp file,
 * flushed, and linked into place, so two processes opening a new folder at once agree on
 * the one that landed first.
 */
async function storeIdentity(root: string): Promise<string> {
  const path = join(root, STORE_ID_FILE);
  const read = async (): Promise<string | undefined> => {
    const text = await ifMissing(readFile(path, 'utf8'), undefined);
    if (text === undefined) return undefined;
    const id = text.trim();
    if (!isUuid(id)) throw new Error(`${path} does not hold a store id (a UUID); it names this image folder in the database`);
    return id;
  };
  const existing = await read();
  if (existing) return existing;
  const temp = join(root, `.store-id.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await openFile(temp, 'wx', 0o640);
  try {
    await handle.writeFile(`${randomUUID()}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await link(temp, path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await unlink(temp);
  await syncDirectory(root);
  const id = await read();
  if (!id) throw new Error(`${path} vanished while it was being created`);
  return id;
}

/**
 * A hub before ADR 0004 journaled images and moved them into the tree in the background;
 * segments it left behind hold acknowledged images with no location row. They are copied
 * into the tree (where reads fall back to), flushed, and deleted, once. A torn tail was
 * never acknowledged and is dropped.
 */
async function replayLegacyJournal(journalDir: string, tree: ImageTree): Promise<void> {
  const names = await ifMissing(readdir(journalDir), []);
  for (const name of names.filter((n) => segmentSeq(n) !== undefined).sort()) {
    const path = join(journalDir, name);
    // Another process on this folder (the worker, the retention command) may be replaying
    // it too: the tree's writes are idempotent, and a file it already deleted is done.
    const bytes = await ifMissing(readFile(path), undefined);
    if (!bytes) continue;
    const written: string[] = [];
    for (const record of scanRecords(bytes).records) {
      // Blocking calls are fine here: nothing is served until this is done.
      const target = tree.writeSync(record.sha256, bytes.subarray(record.offset, record.offset + record.size));
      written.push(target ?? tree.pathOf(record.sha256));
    }
    await tree.makeDurable(written);
    await ifMissing(unlink(path), undefined);
  }
  // Gone once empty, so later starts skip this; fails harmlessly when it never existed.
  await rmdir(journalDir).catch(() => undefined);
}
