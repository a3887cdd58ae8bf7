import type { IncomingMessage } from 'node:http';
import { readEdgeBody, type EdgeBody } from '@alpr/shared/http/read-body';
import { readIncomingBody } from '@alpr/shared/http/read-incoming';
import { HubError } from '../platform/errors.ts';

/**
 * A batch or webhook body into memory under a hard byte cap (the shared edge reader:
 * Content-Length only refuses early, the bytes are counted as they stream, so a chunked
 * body cannot grow past the cap either), as HubErrors: 413 with `Connection: close` (the
 * rest of the body is not read, so the connection cannot be reused), 400 when the client
 * went away or sent a broken chunked encoding.
 *
 * Given Node's request (`nodeRequestOf`, under @hono/node-server), the body is read from it
 * directly (read-incoming.ts: one buffer instead of two more copies of a 4.3 MB batch);
 * without it (`app.request()`), or once something has read it, from the web Request.
 * `allocate`: where a body of declared length goes (read-incoming.ts).
 */
export async function readBodyLimited(
  request: Request,
  maxBytes: number,
  incoming?: IncomingMessage,
  allocate?: (size: number) => Uint8Array<ArrayBuffer> | undefined,
): Promise<Uint8Array> {
  const body: EdgeBody = incoming && !incoming.readableDidRead ? await readIncomingBody(incoming, maxBytes, allocate) : await readEdgeBody(request, maxBytes);
  if (body.kind === 'too_large') throw new HubError('payload_too_large', `request body exceeds ${maxBytes} bytes`, { Connection: 'close' });
  if (body.kind === 'aborted') throw new HubError('bad_request', 'request body could not be read');
  return body.bytes;
}
