import { zValidator } from '@hono/zod-validator';
import type { z } from 'zod';
import { HubError } from '../errors.ts';
import { queryProblem } from './validate.ts';

/**
 * The hub's edge validators (`@hono/zod-validator`) with one failure hook: a refusal is a
 * HubError, so the one `app.onError` answers it with `{ error: { code, message } }` and the
 * message keeps its `field: problem` form (`since: must be between 1970-01-01 and ...`).
 */
export function validQuery<S extends z.ZodType>(schema: S) {
  return zValidator('query', schema, (result) => {
    if (!result.success) {
      const problem = queryProblem(result.error);
      throw new HubError('bad_request', `${problem.field}: ${problem.message}`);
    }
  });
}
