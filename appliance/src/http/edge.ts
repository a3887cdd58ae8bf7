import type { Context, MiddlewareHandler } from 'hono';
import { checkAtEdge } from '@alpr/shared/text/edge';
import type { ServerTimeouts } from '@alpr/shared/http/timeouts';

type LogFn = (obj: Record<string, unknown>, msg: string) => void;
/** The logger the edge needs (pino satisfies it). */
export interface EdgeLog {
  info: LogFn;
  error: LogFn;
}

/**
 * The setup page's bodies are a few form fields (the same 16 KB as setup/routes.ts, so the
 * edge refuses first, with the error envelope); camera
 * pushes read their own stream (2 MiB) and are not edge-checked.
 */
export const APPLIANCE_EDGE_MAX_BYTES = 16 * 1024;

/**
 * Port 8080 serves cameras and installers on the LAN: a camera push is a few KB to 200 KB,
 * the setup page a few fields. Tighter than the hub's, which takes 12 MB batches over WAN.
 */
export const APPLIANCE_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/** Camera pushes: raw multipart/XML/JSON, parsed leniently by the adapters under their own limits. */
export const isRawBodyPath = (path: string): boolean => path.startsWith('/api/v1/ingest/');

const errorBody = (code: string, message: string) => ({ error: { code, message } });

/**
 * The appliance's one body edge (docs/security.md "Hostile input"): the same check as the
 * hub's (shared/src/text/edge.ts) before any setup route reads a body, so a malformed
 * multipart post, a NUL or a lone surrogate is a 400 here and never a 500 inside a route.
 */
export function bodyEdge(log: EdgeLog): MiddlewareHandler {
  return async (c, next) => {
    if (isRawBodyPath(c.req.path)) return next();
    const outcome = await checkAtEdge(c.req.raw, { maxBytes: APPLIANCE_EDGE_MAX_BYTES });
    if (!outcome.ok) {
      if (outcome.aborted) log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-body');
      if (outcome.status === 413) c.header('Connection', 'close');
      return c.json(errorBody(outcome.code, outcome.message), outcome.status);
    }
    c.req.raw = outcome.request;
    return next();
  };
}

/** A client that went away mid-request (or was cut off by a timeout): not a server fault. */
function isClientAbort(error: Error, c: Context): boolean {
  const code = (error as { code?: unknown }).code;
  return c.req.raw.signal?.aborted === true || error.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** One error mapping for port 8080: the `{ error: { code, message } }` envelope, never a bare 500 page. */
export function errorHandler(log: EdgeLog) {
  return (error: Error, c: Context): Response => {
    if (isClientAbort(error, c)) {
      log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-request');
      return c.json(errorBody('bad_request', 'request aborted'), 400);
    }
    log.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json(errorBody('internal', 'internal server error'), 500);
  };
}
