import { closeSync, fsyncSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openImageTree } from './image-tree.ts';
import type { MoveReply, MoveRequest } from './tree-mover.ts';

/**
 * The image mover's worker thread (tree-mover.ts): copies journal records into the tree with
 * blocking calls. Its ~6 file calls per image (stat, open, write, close, rename, a read of
 * the segment) and their garbage stay off the hub's event loop and heap.
 */
const root = (workerData as { root: string }).root;
const tree = openImageTree(root);
/** 10 of 19: yields to the hub's main thread and PostgreSQL, still runs when they wait. */
const MOVER_NICE = 10;

// Background work: below the uploads and the database in the scheduler's eyes, so a burst is
// acknowledged first and copied after (the journal holds it meanwhile). On Linux a nice
// value set from a thread applies to that thread only. Where refused, it runs at normal
// priority, which is only slower under load.
try {
  setPriority(MOVER_NICE);
} catch {
  // not permitted here: keep the default
}
let scratch = Buffer.allocUnsafe(256 * 1024);

parentPort?.on('message', (request: MoveRequest) => {
  let reply: MoveReply;
  try {
    reply = { id: request.id, paths: request.kind === 'move' ? move(request) : sync(request.paths) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});

function move({ segmentPath, records }: Extract<MoveRequest, { kind: 'move' }>): (string | null)[] {
  const fd = openSync(segmentPath, 'r');
  try {
    return records.map((record) => {
      if (scratch.length < record.size) scratch = Buffer.allocUnsafe(record.size);
      const bytes = scratch.subarray(0, record.size);
      let read = 0;
      while (read < record.size) {
        const n = readSync(fd, bytes, read, record.size - read, record.offset + read);
        if (n === 0) throw new Error(`${segmentPath}: ${read} of ${record.size} bytes at ${record.offset}`);
        read += n;
      }
      return tree.writeSync(record.sha256, bytes) ?? null;
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * fsync of each file, then of each folder that may have a new entry (<bb>, <aa>, the root).
 * Files older than the kernel's writeback delay are already on disk: each call is then a
 * few microseconds (measured ~0.04 ms on the development VM), not a write burst.
 */
function sync(paths: readonly string[]): [] {
  const folders = new Set<string>();
  for (const path of paths) {
    if (!fsyncPath(path)) continue;
    folders.add(dirname(path)).add(dirname(dirname(path)));
  }
  if (folders.size > 0) folders.add(root);
  for (const folder of folders) fsyncPath(folder);
  return [];
}

/** False when the path is gone (retention deleted the image after it was moved). */
function fsyncPath(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}
