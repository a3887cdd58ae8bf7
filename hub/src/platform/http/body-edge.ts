import type { MiddlewareHandler } from 'hono';
import { checkAtEdge } from '@alpr/shared/http/edge';
import type { JsonShapeLimits } from '@alpr/shared/http/json-shape';
import { HubError } from '../errors.ts';
import type { Log } from '../log.ts';

export interface BodyEdgeOptions {
  log: Log;
  /** Cap for edge-checked bodies: the largest non-ingest route's (an admin config, 256 KB). */
  maxBytes: number;
  /**
   * Routes that read their own body stream under their own cap and parse camera or batch
   * formats (multipart with JPEGs, vendor XML): the edge leaves their bodies alone.
   */
  rawBody: (path: string) => boolean;
  limits?: JsonShapeLimits;
}

/**
 * The hub's one body edge (docs/security.md "Hostile input"): every JSON or form body is
 * read once under a cap and checked (UTF-8, JSON depth and item counts, form syntax, no
 * NUL or lone surrogate in any field, nested ones included) before a route parses it, so
 * no route can meet such a body and no route needs its own try/catch for it. Refusals are
 * HubErrors: the app's error handler gives them the `{ error: { code, message } }` body.
 */
export function bodyEdge(options: BodyEdgeOptions): MiddlewareHandler {
  return async (c, next) => {
    if (options.rawBody(c.req.path)) return next();
    const outcome = await checkAtEdge(c.req.raw, options);
    if (!outcome.ok) {
      if (outcome.aborted) {
        // The client went away mid-body (or was cut off by the request timeout): nobody
        // reads the answer and nothing is wrong with the hub.
        options.log.info({ path: c.req.path, method: c.req.method }, 'client aborted mid-body');
      }
      const headers: Record<string, string> = outcome.status === 413 ? { Connection: 'close' } : {};
      throw new HubError(outcome.code, outcome.message, headers);
    }
    c.req.raw = outcome.request;
    return next();
  };
}
