/**
 * Positional writes that finish: the kernel may take fewer bytes than asked (a signal, a
 * full disk's last blocks), and an acknowledged append must hold every byte. Used by the
 * segment writer (page cache and direct appends alike) and by compaction.
 */

/** The part of a file handle used here (node:fs/promises FileHandle has it). */
export interface PositionalWriter {
  writev(buffers: readonly Uint8Array[], position: number): Promise<{ bytesWritten: number }>;
}

/** All of `chunks` at `position`, in as few writev calls as the kernel allows. */
export async function writeFully(handle: PositionalWriter, chunks: readonly Uint8Array[], byteLength: number, position: number): Promise<void> {
  let pending = [...chunks];
  let written = 0;
  while (written < byteLength) {
    const { bytesWritten } = await handle.writev(pending, position + written);
    if (bytesWritten === 0) throw new Error('image segment write made no progress');
    written += bytesWritten;
    pending = skipBytes(pending, bytesWritten);
  }
}

/** Pure: what is left of `chunks` once their first `count` bytes are written. */
export function skipBytes(chunks: readonly Uint8Array[], count: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  let skip = count;
  for (const chunk of chunks) {
    if (skip >= chunk.byteLength) {
      skip -= chunk.byteLength;
      continue;
    }
    rest.push(skip > 0 ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
  return rest;
}
