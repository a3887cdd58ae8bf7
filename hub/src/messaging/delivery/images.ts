/**
 * Crops for the delivery worker. Inside the hub the image store answers (journal first,
 * then the tree). A worker in its own process must not open the store (it would replay the
 * hub's journal), so it reads the tree only, waiting a moment for the hub's mover when the
 * image is that fresh; a crop still missing then is sent without (the text says it all).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openImageTree } from '../../ingest/image-tree.ts';

export function treeImageReader(root: string, options: { waitMs?: number; stepMs?: number } = {}): (sha256: string) => Promise<Uint8Array | undefined> {
  const tree = openImageTree(root);
  const waitMs = options.waitMs ?? 3000;
  const stepMs = options.stepMs ?? 250;
  return async (sha256) => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const bytes = await tree.read(sha256).catch(() => undefined);
      if (bytes || Date.now() >= deadline) return bytes;
      await sleep(stepMs);
    }
  };
}
