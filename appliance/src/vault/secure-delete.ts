import { randomFillSync } from 'node:crypto';
import { lstat, open, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Overwrite-then-unlink for the wipe command (docs/protocol.md), a forgotten enrollment and
 * the setup-page vault once claimed: random bytes, fsync, zeros, fsync, then unlink. On a
 * plain ext4/f2fs file rewritten in place this replaces the logical blocks; flash wear
 * levelling and copy-on-write filesystems may keep old copies (docs/appliance-lifecycle.md,
 * "Limits"), which is why credentials are also encrypted: losing vault.json's salt already
 * makes them unreadable.
 */
const CHUNK = 64 * 1024;

async function overwrite(path: string, size: number, fill: (chunk: Buffer) => void): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const chunk = Buffer.alloc(Math.min(CHUNK, Math.max(size, 1)));
    for (let offset = 0; offset < size; offset += chunk.length) {
      fill(chunk);
      const length = Math.min(chunk.length, size - offset);
      await handle.write(chunk, 0, length, offset);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Securely delete one regular file; false when it did not exist. Symlinks are unlinked, never followed. */
export async function secureDeleteFile(path: string): Promise<boolean> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (stats.isFile() && stats.size > 0) {
    await overwrite(path, stats.size, (chunk) => randomFillSync(chunk));
    await overwrite(path, stats.size, (chunk) => chunk.fill(0));
  }
  await unlink(path);
  return true;
}

/** Every file under `dir` securely deleted, then the folders removed. Returns the files deleted. */
export async function secureDeleteTree(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const deleted: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) deleted.push(...(await secureDeleteTree(path)));
    else if (await secureDeleteFile(path)) deleted.push(path);
  }
  await rmdir(dir);
  return deleted;
}
