import type { IncomingMessage } from 'node:http';
import type { EdgeBody } from './read-body.ts';

/**
 * readEdgeBody's contract (read-body.ts: Content-Length refuses early, bytes counted as they
 * arrive, a client that goes away is `aborted`), read straight from Node's IncomingMessage
 * for the large uploads. The web stream that Hono's Request wraps around it copies every
 * chunk (Readable.toWeb detaches each from the socket's buffer), and the chunks are then
 * copied again into one array: for a 4.3 MB batch that was 8.6 MB of fresh memory on top of
 * the socket's own, and on the hub such external memory is what set off V8's full
 * collections (about one per batch, measured). With a Content-Length, the body goes into ONE
 * buffer of that size as it arrives; without one, chunks are joined at the end.
 *
 * Call it only before anything has read the body (`incoming.readableDidRead` false).
 * `allocate` may give the buffer for a body of a declared length (the hub's batch route hands
 * out reused ones, hub/src/ingest/body-buffers.ts; undefined: a fresh one); every byte of it
 * is overwritten before the body is handed on.
 */
export function readIncomingBody(
  incoming: IncomingMessage,
  maxBytes: number,
  allocate?: (size: number) => Uint8Array<ArrayBuffer> | undefined,
): Promise<EdgeBody> {
  const header = incoming.headers['content-length'];
  const declared = header !== undefined && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
  if (declared !== undefined && declared > maxBytes) return Promise.resolve({ kind: 'too_large' });
  if (declared === 0 || incoming.readableEnded) return Promise.resolve({ kind: 'ok', bytes: new Uint8Array(0) });

  return new Promise<EdgeBody>((resolve) => {
    const whole = declared === undefined ? undefined : (allocate?.(declared) ?? freshBuffer(declared));
    if (whole && whole.byteLength !== declared) throw new RangeError(`allocate(${declared}) gave ${whole.byteLength} bytes`);
    const chunks: Uint8Array[] = [];
    let total = 0;
    const finish = (body: EdgeBody): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAborted);
      incoming.off('aborted', onAborted);
      incoming.off('close', onClose);
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      const at = total;
      total += chunk.byteLength;
      // HTTP framing ends the body at Content-Length, so `whole` cannot overflow; checked anyway.
      if (total > maxBytes || (whole && total > whole.byteLength)) {
        // Not read any further; the caller answers 413 with `Connection: close`.
        incoming.pause();
        finish({ kind: 'too_large' });
        return;
      }
      if (whole) whole.set(chunk, at);
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (whole) {
        finish(total === whole.byteLength ? { kind: 'ok', bytes: whole } : { kind: 'aborted' });
        return;
      }
      const bytes = new Uint8Array(new ArrayBuffer(total));
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      finish({ kind: 'ok', bytes });
    };
    const onAborted = (): void => finish({ kind: 'aborted' });
    const onClose = (): void => {
      if (!incoming.complete) finish({ kind: 'aborted' });
    };
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onAborted);
    incoming.once('aborted', onAborted);
    incoming.once('close', onClose);
  });
}

/**
 * Unpooled and not zero-filled: every byte is overwritten before the body is handed on (a
 * short body is `aborted`). allocUnsafeSlow's backing store is a plain ArrayBuffer.
 */
function freshBuffer(size: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer, 0, size);
}
