import { closeSync, openSync, readSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openImageTree } from './image-tree.ts';
import type { MoveReply, MoveRequest } from './tree-mover.ts';

/**
 * The image mover's worker thread (tree-mover.ts): copies journal records into the tree with
 * blocking calls. Its ~6 file calls per image (stat, open, write, close, rename, a read of
 * the segment) and their garbage stay off the hub's event loop and heap.
 */
const tree = openImageTree((workerData as { root: string }).root);
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
    reply = { id: request.id, paths: move(request) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});

function move({ segmentPath, records }: MoveRequest): (string | null)[] {
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
