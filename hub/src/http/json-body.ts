import type { Context } from 'hono';
import { parseBody } from './validate.ts';
import type { z } from 'zod';
import { HubError } from '../errors.ts';

/**
 * The admin API speaks JSON only. A request with no body at all (no content type, nothing
 * sent: `curl -X POST`) counts as `{}`, so routes whose fields are all optional work
 * without one; the schema still decides whether `{}` is acceptable. Any other content
 * type is 415, which also keeps HTML form posts (the CSRF vector) away from every verb.
 */
export async function readJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header('content-type');
  const text = await c.req.text();
  let raw: unknown = {};
  if (type === undefined || type.trim() === '') {
    if (text !== '') throw new HubError('unsupported_media_type', 'request body must be application/json');
  } else if ((type.split(';')[0] ?? '').trim().toLowerCase() !== 'application/json') {
    throw new HubError('unsupported_media_type', 'request body must be application/json');
  } else if (text.trim() !== '') {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new HubError('bad_request', 'request body must be JSON');
    }
  }
  return parseBody(schema, raw);
}

/** A path parameter the route pattern guarantees; a missing one would be a routing bug. */
export function pathParam(c: Context, name: string): string {
  const value = c.req.param(name);
  if (value === undefined) throw new HubError('not_found', `no ${name} in path`);
  return value;
}
