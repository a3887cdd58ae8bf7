import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { openJournalWriter, scanRecords, segmentSeq, type JournalEntry, type RecordLocation, type Segment } from './image-journal.ts';
import { isSha256, openImageTree, type ImageTree } from './image-tree.ts';
import { startTreeMover } from './tree-mover.ts';

/**
 * The hub's image store (docs/ingest.md, "Image journal"). An upload's images are made
 * durable by appending them to a journal segment (one write, one fdatasync per batch);
 * a background mover then copies each into the content-addressed tree
 * `<root>/<aa>/<bb>/<sha256>.jpg`, flushes the tree, and deletes the segment. Reads look
 * in the journal first, then in the tree. At start, segments left by a crash are replayed
 * into the tree before the store serves anything: every acknowledged image survives.
 */
export interface ImageStore {
  /** Makes every image durable (journal flush) before resolving; `sha256` must be the bytes' hash. */
  putBatch(images: readonly JournalEntry[]): Promise<void>;
  /** One image; `sha256`, when given, must have been computed from these bytes. */
  put(bytes: Uint8Array, sha256?: string): Promise<StoredImage>;
  get(sha256: string): Promise<Uint8Array | undefined>;
  /**
   * Retention (docs/retention.md): deletes the image from the tree. `journaled` when it is
   * still waiting in the journal (an image a year old never is; it stays then), `absent`
   * when there was nothing to delete.
   */
  remove(sha256: string): Promise<'removed' | 'absent' | 'journaled'>;
  /** Where the image lives for good (once moved out of the journal). */
  pathOf(sha256: string): string;
  /** Resolves once crash recovery (replaying leftover journal segments) is done; rejects if it failed. */
  ready(): Promise<void>;
  /** Resolves once every image appended so far is in the tree, flushed, and its segment deleted. */
  drain(): Promise<void>;
  /** Finishes the appends in flight and stops the mover; unmoved images stay in the journal. */
  close(): Promise<void>;
}

export interface StoredImage {
  sha256: string;
  size: number;
  /** False when the same bytes were already stored. */
  written: boolean;
}

export interface ImageStoreOptions {
  /** A segment takes appends up to this size (default 64 MiB, ~15 batches of 50 with images). */
  segmentBytes?: number;
  /** A segment is sealed (and then emptied) after this long without appends (default 2 s). */
  idleSealMs?: number;
  /** Background failures (disk full while moving): logged by the caller; the mover retries. */
  onError?: (error: unknown) => void;
  /** A fully moved segment is flushed and deleted once this old (default 30 s, RETIRE_AFTER_MS)... */
  retireAfterMs?: number;
  /** ...or once moved segments hold this many bytes (default 512 MiB). */
  retireBytes?: number;
}

export const JOURNAL_FOLDER = 'journal';
const RETRY_MS = 5_000;
/**
 * Images handed to the mover thread per call (tree-mover.ts): a batch of 50 with images is
 * 100; one message per batch instead of one per image.
 */
const MOVES_PER_CALL = 128;
/**
 * A segment whose images are all in the tree is deleted only after the tree is flushed
 * (`syncfs`). Flushing at once put ~64 MiB of fresh writes on the disk in one burst, and the
 * uploads' own flushes (WAL commit, journal) queued behind it: the slowest 5 % of batches
 * were ~10 ms slower for it (measured, p95 64 vs 55 ms without the flush). 30 s is the
 * kernel's default dirty_expire: by then its background writeback has written most of it,
 * and the flush, now one for every segment due, finds little left. Bounded by RETIRE_BYTES
 * of journal on disk. drain() and start-up recovery flush at once.
 */
const RETIRE_AFTER_MS = 30_000;
const RETIRE_BYTES = 512 * 1024 * 1024;

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

type MoveTask = { kind: 'move'; segment: Segment; location: RecordLocation };
type Task = MoveTask | { kind: 'retire'; segment: Segment };

export function openImageStore(root: string, options: ImageStoreOptions = {}): ImageStore {
  const tree = openImageTree(root);
  const journalDir = join(root, JOURNAL_FOLDER);
  const onError = options.onError ?? (() => undefined);
  /** Images durable in the journal and not yet in the tree. */
  const journaled = new Map<string, { segment: Segment; location: RecordLocation }>();
  /** Tree files written from each segment, flushed before the segment goes. */
  const written = new Map<Segment, string[]>();
  const tasks: Task[] = [];
  let moving: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  let drainWaiters: (() => void)[] = [];

  const ready = (async () => {
    await mkdir(journalDir, { recursive: true });
    const firstSeq = await recover(journalDir, tree);
    return openJournalWriter({
      dir: journalDir,
      firstSeq,
      segmentBytes: options.segmentBytes ?? 64 * 1024 * 1024,
      onSealed: (segment) => schedule({ kind: 'retire', segment }),
    });
  })();
  ready.catch(() => undefined); // every operation awaits it and reports the failure

  const sealTimer = setInterval(() => {
    if (stopped) return;
    void ready.then((writer) => writer.sealIfIdle(options.idleSealMs ?? 2_000)).catch(() => undefined);
    retireMoved(false).catch(onError);
  }, Math.min(1_000, options.idleSealMs ?? 2_000));
  sealTimer.unref();

  const settle = (): void => {
    if (tasks.length > 0 || moving || journaled.size > 0) return;
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const mover = startTreeMover(root);
  /** Consecutive moves of one segment, copied by the mover thread in one call. */
  const runMoves = async (moves: readonly MoveTask[]): Promise<void> => {
    const segment = moves[0]?.segment;
    if (!segment) return;
    const paths = await mover.move(segment.path, moves.map((m) => m.location));
    const segmentPaths = written.get(segment) ?? [];
    written.set(segment, segmentPaths);
    for (const [i, { location }] of moves.entries()) {
      // A file already there may be one an earlier, failed attempt wrote and nobody flushed:
      // flushed with the rest all the same.
      segmentPaths.push(paths[i] ?? tree.pathOf(location.sha256));
      if (journaled.get(location.sha256)?.location === location) journaled.delete(location.sha256);
      segment.unmoved -= 1;
    }
  };
  /** Every segment appended to and not yet deleted: their handles are closed by close(). */
  const live = new Set<Segment>();
  /** Fully moved segments waiting for the flush that lets them go (RETIRE_AFTER_MS). */
  const moved: { segment: Segment; at: number }[] = [];
  let retiring: Promise<void> | undefined;
  const retireAfterMs = options.retireAfterMs ?? RETIRE_AFTER_MS;
  const retireBytes = options.retireBytes ?? RETIRE_BYTES;
  const retireDue = (force: boolean): boolean => {
    const oldest = moved[0];
    if (!oldest) return false;
    if (force || performance.now() - oldest.at >= retireAfterMs) return true;
    return moved.reduce((bytes, m) => bytes + m.segment.size, 0) >= retireBytes;
  };
  /** One flush for every segment due, then their deletion; one run at a time. */
  const retireMoved = async (force: boolean): Promise<void> => {
    while (retiring) await retiring.catch(() => undefined);
    if (!retireDue(force)) return;
    const due = moved.splice(0);
    retiring = (async () => {
      await tree.makeDurable(due.flatMap(({ segment }) => written.get(segment) ?? []));
      for (const { segment } of due) {
        written.delete(segment);
        live.delete(segment);
        await segment.handle.close();
        await unlink(segment.path);
      }
    })();
    try {
      await retiring;
    } catch (error) {
      // Not flushed: every segment is kept and tried again on the next tick. One whose
      // deletion had begun is not retried; if its file is still there, the next start
      // replays it (a copy of what the tree already holds, flushed again).
      moved.unshift(...due.filter(({ segment }) => written.has(segment)));
      throw error;
    } finally {
      retiring = undefined;
    }
  };
  const retire = async (segment: Segment): Promise<void> => {
    // Appended records are always scheduled before the seal, so unmoved is 0 here unless
    // a move failed and is waiting for its retry (it re-queues this task behind it).
    if (segment.unmoved > 0) throw new Error(`segment ${segment.seq} still has ${segment.unmoved} unmoved images`);
    written.set(segment, written.get(segment) ?? []);
    // Flushed and deleted by the once-a-second tick (retireMoved) when due, or by drain().
    moved.push({ segment, at: performance.now() });
  };

  const runTasks = async (): Promise<void> => {
    while (tasks.length > 0 && !stopped) {
      // Consecutive moves of one segment go to the mover thread in one call; a retire runs
      // alone, after the moves queued before it (its segment's), so it never sees one in flight.
      const chunk: Task[] = [];
      const first = tasks[0];
      while (first?.kind === 'move' && chunk.length < MOVES_PER_CALL) {
        const next = tasks[0];
        if (next?.kind !== 'move' || next.segment !== first.segment) break;
        chunk.push(tasks.shift() as Task);
      }
      if (chunk.length === 0) {
        const task = tasks.shift() as Task;
        // A segment sealed by rotation is queued for retirement synchronously, before the
        // moves of its last append (queued when that append's caller resumes): put it
        // behind them; when nothing else is queued, the next append's kick() resumes it.
        if (task.kind === 'retire' && task.segment.unmoved > 0) {
          tasks.push(task);
          if (tasks.every((t) => t.kind === 'retire')) return;
          continue;
        }
        chunk.push(task);
      }
      const moves = chunk.filter((t): t is MoveTask => t.kind === 'move');
      const only = chunk[0];
      const step = moves.length > 0 || !only ? runMoves(moves) : retire(only.segment);
      const outcome = await step.then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      const failed = outcome ? chunk : [];
      if (failed.length === 0) continue;
      tasks.unshift(...failed);
      onError(outcome?.error);
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        kick();
      }, RETRY_MS);
      retryTimer.unref();
      return;
    }
  };
  const kick = (): void => {
    if (moving || stopped || retryTimer) return;
    moving = runTasks().finally(() => {
      moving = undefined;
      settle();
    });
  };
  function schedule(task: Task): void {
    tasks.push(task);
    kick();
  }

  const putBatch = async (images: readonly JournalEntry[]): Promise<void> => {
    const writer = await ready;
    const fresh = new Map<string, JournalEntry>();
    for (const image of images) if (!journaled.has(image.sha256)) fresh.set(image.sha256, image);
    if (fresh.size === 0) return;
    const { segment, locations } = await writer.append([...fresh.values()]);
    live.add(segment);
    for (const location of locations) {
      journaled.set(location.sha256, { segment, location });
      tasks.push({ kind: 'move', segment, location });
    }
    kick();
  };

  return {
    pathOf: tree.pathOf,
    putBatch,
    ready: () => ready.then(() => undefined),
    async put(bytes, knownSha256) {
      const sha256 = knownSha256 ?? sha256Hex(bytes);
      await ready;
      if (journaled.has(sha256) || (await tree.has(sha256, bytes.byteLength))) return { sha256, size: bytes.byteLength, written: false };
      await putBatch([{ sha256, bytes }]);
      return { sha256, size: bytes.byteLength, written: true };
    },
    async get(sha256) {
      if (!isSha256(sha256)) return undefined;
      await ready;
      const entry = journaled.get(sha256);
      if (entry) {
        const bytes = Buffer.alloc(entry.location.size);
        // The mover may retire the segment between the lookup and the read: then the image
        // is already in the tree.
        const read = await entry.segment.handle.read(bytes, 0, entry.location.size, entry.location.offset).catch(() => undefined);
        if (read?.bytesRead === entry.location.size) return bytes;
      }
      return tree.read(sha256);
    },
    async remove(sha256) {
      if (!isSha256(sha256)) return 'absent';
      await ready;
      if (journaled.has(sha256)) return 'journaled';
      return (await tree.remove(sha256)) ? 'removed' : 'absent';
    },
    async drain() {
      const writer = await ready;
      writer.sealIfIdle(0);
      kick();
      await new Promise<void>((resolve) => {
        drainWaiters.push(resolve);
        settle();
      });
      await retireMoved(true);
    },
    async close() {
      clearInterval(sealTimer);
      const writer = await ready.catch(() => undefined);
      await writer?.close();
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      await moving;
      await mover.close();
      await retiring?.catch(() => undefined);
      // Segments not yet retired stay on disk: the next start replays and flushes them.
      for (const segment of live) await segment.handle.close().catch(() => undefined);
    },
  };
}

/**
 * Crash recovery: copies every intact record of every leftover segment into the tree,
 * flushes the tree, deletes the segments. Returns the next segment number. A torn tail
 * (a crash mid-append) was never acknowledged and is dropped.
 */
async function recover(journalDir: string, tree: ImageTree): Promise<number> {
  const segments = (await readdir(journalDir))
    .map((name) => ({ name, seq: segmentSeq(name) }))
    .filter((s): s is { name: string; seq: number } => s.seq !== undefined)
    .sort((a, b) => a.seq - b.seq);
  let nextSeq = 1;
  for (const { name, seq } of segments) {
    const path = join(journalDir, name);
    const bytes = await readFile(path);
    const written: string[] = [];
    for (const record of scanRecords(bytes).records) {
      // Blocking calls are fine here: nothing is served until recovery is done.
      const target = tree.writeSync(record.sha256, bytes.subarray(record.offset, record.offset + record.size));
      // One already there may never have been flushed (the process stopped before it was).
      written.push(target ?? tree.pathOf(record.sha256));
    }
    await tree.makeDurable(written);
    await unlink(path);
    nextSeq = Math.max(nextSeq, seq + 1);
  }
  return nextSeq;
}
