import { bodyEncoding, inspectBody } from './inspect-body.ts';
import { readEdgeBody } from './read-body.ts';
import type { JsonShapeLimits } from './json-shape.ts';

/**
 * One request through the body edge. On success `request` is a copy whose body is the
 * bytes already read (routes read it again as if untouched); on refusal a status, code
 * and message for the server's own error envelope.
 */
export type EdgeOutcome =
  { ok: true; request: Request } | { ok: false; status: 400 | 413; code: 'bad_request' | 'payload_too_large'; message: string; aborted?: true };

export interface EdgeOptions {
  /** Largest body any edge-checked route accepts; routes keep their own smaller caps. */
  maxBytes: number;
  limits?: JsonShapeLimits;
}

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function checkAtEdge(request: Request, options: EdgeOptions): Promise<EdgeOutcome> {
  if (BODYLESS.has(request.method) || !request.body) return { ok: true, request };
  const body = await readEdgeBody(request, options.maxBytes);
  if (body.kind === 'too_large') {
    return { ok: false, status: 413, code: 'payload_too_large', message: `request body over ${options.maxBytes} bytes` };
  }
  if (body.kind === 'aborted') return { ok: false, status: 400, code: 'bad_request', message: 'request body could not be read', aborted: true };
  const contentType = request.headers.get('content-type');
  if (bodyEncoding(contentType) !== 'other') {
    const verdict = await inspectBody(body.bytes, contentType, options.limits);
    if (!verdict.ok) return { ok: false, status: 400, code: verdict.code, message: verdict.message };
  }
  // The exact length: later readers (Hono's bodyLimit) then trust the header instead of
  // locking the body stream that an earlier middleware may already have parsed.
  const headers = new Headers(request.headers);
  headers.delete('transfer-encoding');
  headers.set('content-length', String(body.bytes.byteLength));
  return { ok: true, request: new Request(request, { body: body.bytes, headers }) };
}
