import { readEdgeBody } from '@alpr/shared/http/read-body';

/**
 * Request body under a byte cap, for the push routes: the shared edge reader (the declared
 * Content-Length refuses early, the stream is counted as it arrives, so a chunked body
 * without a length cannot grow past the cap either).
 */
export type CappedBody = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too_large' | 'aborted' };

export async function readCappedBody(request: Request, maxBytes: number): Promise<CappedBody> {
  const body = await readEdgeBody(request, maxBytes);
  if (body.kind === 'ok') return { ok: true, bytes: body.bytes };
  return { ok: false, reason: body.kind };
}
