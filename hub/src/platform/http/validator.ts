import { zValidator } from '@hono/zod-validator';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { HubError } from '../errors.ts';
import { bodyProblem, queryProblem } from './validate.ts';

/**
 * The hub's edge validators (`@hono/zod-validator`), declared on the route so the handler
 * reads typed input with `c.req.valid('query' | 'json' | 'param')`. One failure hook each: a
 * refusal is a HubError, so the one `app.onError` answers it with `{ error: { code, message } }`
 * and the message names the field (`since: must be between 1970-01-01 and ...`).
 */
export function validQuery<S extends z.ZodType>(schema: S) {
  return zValidator('query', schema, (result) => {
    if (!result.success) {
      const problem = queryProblem(result.error);
      throw new HubError('bad_request', `${problem.field}: ${problem.message}`);
    }
  });
}

/** Path parameters (`:id`): the schema says what an id is, so a malformed one is a 400, never a database error. */
export function validParam<S extends z.ZodType>(schema: S) {
  return zValidator('param', schema, (result) => {
    if (!result.success) {
      const problem = queryProblem(result.error);
      throw new HubError('bad_request', `${problem.field}: ${problem.message}`);
    }
  });
}

/**
 * A JSON body: `jsonOnly` first (the media type and the empty-body rule), then the schema.
 * Use as `app.post(path, guard, ...validJson(schema), handler)`.
 */
export function validJson<S extends z.ZodType>(schema: S) {
  return [
    jsonOnly,
    zValidator('json', schema, (result) => {
      if (!result.success) throw new HubError('bad_request', `invalid request body: ${bodyProblem(result.error)}`);
    }),
  ] as const;
}

const isJsonType = (type: string) => (type.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';

/**
 * The admin API speaks JSON only. A request with no body at all (no content type, nothing
 * sent: `curl -X POST`) counts as `{}`, so routes whose fields are all optional work without
 * one; the schema still decides whether `{}` is acceptable. A JSON content type with a blank
 * body counts as `{}` too. Any other content type is 415, which also keeps HTML form posts
 * (the CSRF vector) away from every verb; JSON that does not parse is a 400 in our envelope
 * rather than the validator's own text.
 */
export const jsonOnly: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type');
  const text = await c.req.text();
  if (type === undefined || type.trim() === '') {
    if (text !== '') throw new HubError('unsupported_media_type', 'request body must be application/json');
  } else if (!isJsonType(type)) {
    throw new HubError('unsupported_media_type', 'request body must be application/json');
  } else if (text.trim() === '') {
    // Hono's json() parses the cached text (a promise at run time, though typed as the value):
    // a blank body becomes the empty object.
    (c.req.bodyCache as unknown as { text: Promise<string> }).text = Promise.resolve('{}');
  } else {
    try {
      JSON.parse(text);
    } catch {
      throw new HubError('bad_request', 'request body must be JSON');
    }
  }
  await next();
};

/**
 * The `:id` of a route, typed. What an id looks like is the verb's to say (a malformed
 * collector id is a 404 "no such collector", like an unknown one), so this only names it.
 */
export const idParam = validParam(z.object({ id: z.string() }));

/** Routes whose verb takes no input still refuse stray fields (a body meant for another route). */
export const emptyBodySchema = z.object({}).strict();
