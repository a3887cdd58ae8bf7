import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Size and SHA-256 of what was read. */
export interface Digest {
  bytes: number;
  sha256: string;
}

/** Every regular file under `root`, as paths relative to it (`/` separated), sorted. Missing root: none. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/**
 * Copies `from` to `to` as it is at this moment, hashing the bytes copied, and flushes the
 * copy. A segment still taking appends is copied up to where it ends when read: every
 * record the database dump names was flushed before its detection committed, so it is in.
 * Undefined when `from` vanished first (compaction deleted a segment no dumped row names).
 */
export async function copyWithDigest(from: string, to: string): Promise<Digest | undefined> {
  const source = createReadStream(from);
  const opened = await new Promise<boolean>((resolve, reject) => {
    source.once('open', () => resolve(true));
    source.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(false) : reject(error)));
  });
  if (!opened) return undefined;
  await mkdir(dirname(to), { recursive: true });
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, tap, createWriteStream(to, { flags: 'wx', mode: 0o600 }));
  await syncFile(to);
  return { bytes, sha256: hash.digest('hex') };
}

export async function digestFile(path: string): Promise<Digest | undefined> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(path)) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** True when `path` is absent or an empty folder. */
export async function isEmptyFolder(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return true;
  if (!info.isDirectory()) return false;
  return (await readdir(path)).length === 0;
}
