import { readEdgeBody } from '@alpr/shared/text/read-body';
import { HubError } from '../errors.ts';

/**
 * A batch or webhook body into memory under a hard byte cap (the shared edge reader:
 * Content-Length only refuses early, the bytes are counted as they stream, so a chunked
 * body cannot grow past the cap either), as HubErrors: 413 with `Connection: close` (the
 * rest of the body is not read, so the connection cannot be reused), 400 when the client
 * went away or sent a broken chunked encoding.
 */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const body = await readEdgeBody(request, maxBytes);
  if (body.kind === 'too_large') throw new HubError('payload_too_large', `request body exceeds ${maxBytes} bytes`, { Connection: 'close' });
  if (body.kind === 'aborted') throw new HubError('bad_request', 'request body could not be read');
  return body.bytes;
}
