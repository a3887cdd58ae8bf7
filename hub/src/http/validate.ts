import type { z } from 'zod';
import { HubError } from '../errors.ts';

/** Parse an already-decoded body with a zod schema; a 400 naming the first problem otherwise. */
export function parseBody<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new HubError('bad_request', `invalid request body: ${where}${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
