import type { Context } from 'hono';
import type { Log } from '../log.ts';
import { HubError } from '../errors.ts';

/**
 * A request whose client went away (or was cut off by the request timeout) while its body
 * was being read: Node reports `aborted` / `ECONNRESET`. Nobody reads the answer and the
 * hub did nothing wrong, so it is logged at info, not as an unhandled error.
 */
export function isClientAbort(error: Error, c: Context): boolean {
  const code = (error as { code?: unknown }).code;
  return c.req.raw.signal?.aborted === true || error.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** `app.onError`: HubError -> its status and `{ error: { code, message } }`; anything else -> 500. */
export function errorHandler(log: Log) {
  return (error: Error, c: Context): Response => {
    if (error instanceof HubError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json({ error: { code: error.code, message: error.message } }, error.status as 400);
    }
    if (isClientAbort(error, c)) {
      log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-request');
      return c.json({ error: { code: 'bad_request', message: 'request aborted' } }, 400);
    }
    log.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json({ error: { code: 'internal', message: 'internal server error' } }, 500);
  };
}
