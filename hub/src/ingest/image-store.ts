import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Content-addressed image store on the filesystem: `<root>/<aa>/<bb>/<sha256>.jpg`.
 * Written atomically (temp file in the same folder, fsync, rename), so a crash leaves
 * either the whole image or nothing under its name; an image already present is not
 * written twice (same hash = same bytes).
 */
export interface ImageStore {
  /**
   * Stores `bytes` under their SHA-256. `sha256`, when given, must have been computed from
   * these same bytes by the caller (ingest hashes every part to check it against the
   * declared hash): it saves hashing a 4 MB batch twice.
   */
  put(bytes: Uint8Array, sha256?: string): Promise<StoredImage>;
  get(sha256: string): Promise<Uint8Array | undefined>;
  pathOf(sha256: string): string;
}

export interface StoredImage {
  sha256: string;
  size: number;
  /** False when the same bytes were already stored. */
  written: boolean;
}

const HASH = /^[0-9a-f]{64}$/;

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export function openImageStore(root: string): ImageStore {
  const pathOf = (sha256: string): string => {
    if (!HASH.test(sha256)) throw new Error('not a SHA-256 hex digest');
    return join(root, sha256.slice(0, 2), sha256.slice(2, 4), `${sha256}.jpg`);
  };
  // Folders known to exist: a batch writes ~100 images, and skipping a mkdir per image is
  // one thread-pool round trip less each (at most 65,536 entries).
  const folders = new Set<string>();
  return {
    pathOf,
    async put(bytes, knownSha256) {
      const sha256 = knownSha256 ?? sha256Hex(bytes);
      const target = pathOf(sha256);
      const existing = await stat(target).catch(() => undefined);
      if (existing?.size === bytes.length) return { sha256, size: bytes.length, written: false };
      const folder = join(target, '..');
      if (!folders.has(folder)) {
        await mkdir(folder, { recursive: true });
        folders.add(folder);
      }
      const temp = join(folder, `.${sha256}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temp, 'wx', 0o640);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temp, target);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
      return { sha256, size: bytes.length, written: true };
    },
    async get(sha256) {
      if (!HASH.test(sha256)) return undefined;
      return readFile(pathOf(sha256)).catch(() => undefined);
    },
  };
}
