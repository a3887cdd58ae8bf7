import type { Context } from 'hono';
import { isClientAbort } from '@alpr/shared/http/client-abort';
import { ABORTED_ENVELOPE, errorEnvelope, INTERNAL_ENVELOPE } from '@alpr/shared/http/error-envelope';
import type { Log } from '../log.ts';
import { HubError } from '../errors.ts';

/** The one writer of a refused request's body and headers: every HubError answers here. */
export function hubErrorResponse(c: Context, error: HubError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  // `reason` only where two refusals share a status (collector enrollment, errors.ts).
  const body =
    error.reason === undefined ? errorEnvelope(error.code, error.message) : { error: { code: error.code, message: error.message, reason: error.reason } };
  return c.json(body, error.status as 400);
}

/**
 * `app.onError`: HubError -> its status and `{ error: { code, message } }`; a client that
 * went away mid-request -> logged at info (shared with the appliance); anything else -> 500.
 */
export function errorHandler(log: Log) {
  return (error: Error, c: Context): Response => {
    if (error instanceof HubError) return hubErrorResponse(c, error);
    if (isClientAbort(error, c.req.raw)) {
      log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-request');
      return c.json(ABORTED_ENVELOPE, 400);
    }
    log.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json(INTERNAL_ENVELOPE, 500);
  };
}
