import type { Context, MiddlewareHandler } from 'hono';
import { checkAtEdge } from '@alpr/shared/http/edge';
import type { ServerTimeouts } from '@alpr/shared/http/timeouts';
import { isClientAbort } from '@alpr/shared/http/client-abort';
import { ABORTED_ENVELOPE, INTERNAL_ENVELOPE, errorEnvelope } from '@alpr/shared/http/error-envelope';
import { ApplianceError } from '../errors.ts';
import { PUSH_PREFIX } from './local-paths.ts';

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
export const isRawBodyPath = (path: string): boolean => path.startsWith(PUSH_PREFIX);

/**
 * The appliance's one body edge (docs/security.md "Hostile input"): the same check as the
 * hub's (shared/src/http/edge.ts) before any setup route reads a body, so a malformed
 * multipart post, a NUL or a lone surrogate is a 400 here and never a 500 inside a route.
 */
export function bodyEdge(log: EdgeLog): MiddlewareHandler {
  return async (c, next) => {
    if (isRawBodyPath(c.req.path)) return next();
    const outcome = await checkAtEdge(c.req.raw, { maxBytes: APPLIANCE_EDGE_MAX_BYTES });
    if (!outcome.ok) {
      if (outcome.aborted) log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-body');
      if (outcome.status === 413) c.header('Connection', 'close');
      return c.json(errorEnvelope(outcome.code, outcome.message), outcome.status);
    }
    c.req.raw = outcome.request;
    return next();
  };
}

/**
 * One error mapping for port 8080: ApplianceError -> its status, headers and the
 * `{ error: { code, message } }` envelope; anything else the envelope too, never a bare 500 page.
 */
export function errorHandler(log: EdgeLog) {
  return (error: Error, c: Context): Response => {
    if (error instanceof ApplianceError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(errorEnvelope(error.code, error.message), error.status as 400);
    }
    if (isClientAbort(error, c.req.raw)) {
      log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-request');
      return c.json(ABORTED_ENVELOPE, 400);
    }
    log.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json(INTERNAL_ENVELOPE, 500);
  };
}
