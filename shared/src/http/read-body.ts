/**
 * A request body into memory under a byte cap, for the HTTP edges. Content-Length only
 * refuses early; the bytes are counted as they arrive, so a chunked body cannot grow past
 * the cap either. A client that goes away mid-body is reported as `aborted`, not thrown,
 * so the caller can log it at a fitting level (it is not a server fault).
 */
export type EdgeBody = { kind: 'ok'; bytes: Uint8Array<ArrayBuffer> } | { kind: 'too_large' } | { kind: 'aborted' };

export async function readEdgeBody(request: Request, maxBytes: number): Promise<EdgeBody> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) return { kind: 'too_large' };
  if (!request.body) return { kind: 'ok', bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      return { kind: 'aborted' };
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { kind: 'too_large' };
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { kind: 'ok', bytes };
}
