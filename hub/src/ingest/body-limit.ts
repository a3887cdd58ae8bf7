import { HubError } from '../errors.ts';

/**
 * Reads a request body into memory with a hard byte cap that holds whatever the client
 * declares. Content-Length is only used to refuse early (a 40 MB declaration is refused
 * before a byte is read); it is never trusted as the real size, and a chunked body has
 * none, so the bytes are counted as they stream in and reading stops at the first chunk
 * over the cap. At most `maxBytes` plus one chunk (64 KiB from Node) is ever buffered.
 */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = declaredLength(request.headers.get('content-length'));
  if (declared !== undefined && declared > maxBytes) throw tooLarge(maxBytes);
  const stream = request.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      // The client went away or sent a broken chunked encoding: nothing to store.
      throw new HubError('bad_request', 'request body could not be read');
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(next.value);
  }
  return concat(chunks, total);
}

/** A Content-Length we can act on; undefined for absent or garbled values (the count decides). */
function declaredLength(value: string | null): number | undefined {
  if (value === null || !/^\d{1,16}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

function tooLarge(maxBytes: number): HubError {
  // Connection: close — the rest of the body is not read, so the connection cannot be reused.
  return new HubError('payload_too_large', `request body exceeds ${maxBytes} bytes`, { Connection: 'close' });
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
