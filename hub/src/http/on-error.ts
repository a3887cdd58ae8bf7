import type { Context } from 'hono';
import type { Log } from '../log.ts';
import { HubError } from '../errors.ts';

/** `app.onError`: HubError -> its status and `{ error: { code, message } }`; anything else -> 500. */
export function errorHandler(log: Log) {
  return (error: Error, c: Context): Response => {
    if (error instanceof HubError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json({ error: { code: error.code, message: error.message } }, error.status as 400);
    }
    log.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json({ error: { code: 'internal', message: 'internal server error' } }, 500);
  };
}
