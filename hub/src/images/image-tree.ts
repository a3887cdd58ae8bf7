import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ifMissing } from './missing.ts';
import { syncDirectory } from './segment-files.ts';

/**
 * The content-addressed image tree, `<root>/<aa>/<bb>/<sha256>.jpg`: where hubs before ADR
 * 0004 kept images for good. New images stay in their segments; the tree is still read
 * (older images), removed from by retention, and written once at start to replay a journal
 * an older hub left. Files are written to a temp name and renamed, so a name always holds
 * the whole image; durability is settled in bulk by `makeDurable` before the journal
 * segment that held the images is deleted.
 */
const HASH = /^[0-9a-f]{64}$/;

export const isSha256 = (value: string): boolean => HASH.test(value);

export interface ImageTree {
  pathOf(sha256: string): string;
  /**
   * Writes the image unless a file of that size is there; returns the path written, if any.
   * Blocking calls: used where nothing else waits (start-up replay of a legacy journal).
   */
  writeSync(sha256: string, bytes: Uint8Array): string | undefined;
  read(sha256: string): Promise<Uint8Array | undefined>;
  /** Deletes the image; false when there was none. */
  remove(sha256: string): Promise<boolean>;
  /** Makes every file written so far (`paths`) and its directory entry durable. */
  makeDurable(paths: readonly string[]): Promise<void>;
}

export function openImageTree(root: string): ImageTree {
  const pathOf = (sha256: string): string => {
    if (!isSha256(sha256)) throw new Error('not a SHA-256 hex digest');
    return join(root, sha256.slice(0, 2), sha256.slice(2, 4), `${sha256}.jpg`);
  };
  // Folders known to exist: skips a mkdir per image (at most 65,536 entries).
  const folders = new Set<string>();
  // undefined: not tried yet. `sync -f` (syncfs(2), GNU coreutils) flushes the whole file
  // system in one call: one flush per 64 MiB segment instead of ~750 fsyncs.
  let syncfsWorks: boolean | undefined;
  const tempName = (folder: string, sha256: string): string => join(folder, `.${sha256}.${randomBytes(6).toString('hex')}.tmp`);

  return {
    pathOf,
    writeSync(sha256, bytes) {
      const target = pathOf(sha256);
      if (statSync(target, { throwIfNoEntry: false })?.size === bytes.byteLength) return undefined;
      const folder = dirname(target);
      if (!folders.has(folder)) {
        mkdirSync(folder, { recursive: true });
        folders.add(folder);
      }
      const temp = tempName(folder, sha256);
      const fd = openSync(temp, 'wx', 0o640);
      try {
        for (let at = 0; at < bytes.byteLength;) at += writeSync(fd, bytes, at, bytes.byteLength - at);
      } finally {
        closeSync(fd);
      }
      try {
        renameSync(temp, target);
      } catch (error) {
        try {
          unlinkSync(temp);
        } catch {
          // already gone
        }
        throw error;
      }
      return target;
    },
    async read(sha256) {
      if (!isSha256(sha256)) return undefined;
      return readFile(pathOf(sha256)).catch(() => undefined);
    },
    async remove(sha256) {
      return ifMissing(
        unlink(pathOf(sha256)).then(() => true),
        false,
      );
    },
    async makeDurable(paths) {
      if (paths.length === 0) return;
      if (syncfsWorks !== false) {
        syncfsWorks = await syncFileSystem(root);
        if (syncfsWorks) return;
      }
      // Portable fallback: fsync each file, then each folder whose entries changed.
      const dirs = new Set<string>();
      for (const path of paths) {
        const handle = await open(path, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        // The <bb> folder, the <aa> folder and the root: either may have a new entry.
        dirs
          .add(dirname(path))
          .add(dirname(dirname(path)))
          .add(root);
      }
      for (const dir of dirs) await syncDirectory(dir);
    },
  };
}

function syncFileSystem(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('sync', ['-f', path], { timeout: 120_000 }, (error) => resolve(!error));
  });
}
