import type { z } from 'zod';
import { HubError } from '../errors.ts';

/** Parse an already-decoded body with a zod schema; a 400 naming the first problem otherwise. */
export function parseBody<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new HubError('bad_request', `invalid request body: ${bodyProblem(parsed.error)}`);
  }
  return parsed.data;
}

/** The first problem of a body: `path.to.field: why`, or just why for the body as a whole. */
export function bodyProblem(error: { issues: readonly z.core.$ZodIssue[] }): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue?.message ?? 'invalid'}`;
}

/** The query parameter a zod issue is about (its path, or the unknown key it names), and why. */
export function queryProblem(error: { issues: readonly z.core.$ZodIssue[] }): { field: string; message: string } {
  const issue = error.issues[0];
  if (issue?.code === 'unrecognized_keys') return { field: String(issue.keys[0] ?? '(query)'), message: 'not a parameter of this request' };
  // A query parameter is the path's first step (`collector_id`, not `collector_id.0` for one of its values).
  return { field: issue && issue.path.length > 0 ? String(issue.path[0]) : '(query)', message: issue?.message ?? 'invalid' };
}
