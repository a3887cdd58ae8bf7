import type { MiddlewareHandler } from 'hono';
import { textProblem } from '@alpr/shared/validation/params';
import { HubError } from '../errors.ts';

/**
 * The query-string half of the hub's edge (docs/security.md "Hostile input"): no parameter
 * name or value may carry a NUL or a lone surrogate, on any route, present and future.
 * PostgreSQL refuses both in text, so without this a filter like `?target_id=%00` reached
 * the database and came back as a 500. Undecodable escapes are refused here too.
 */
export function queryEdge(): MiddlewareHandler {
  return async (c, next) => {
    const url = c.req.url;
    const at = url.indexOf('?');
    if (at === -1) return next();
    const hash = url.indexOf('#', at);
    for (const pair of url.slice(at + 1, hash === -1 ? undefined : hash).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
      const name = decode(rawName);
      const value = decode(rawValue);
      if (name === undefined) throw new HubError('bad_request', 'query: a parameter name is not valid percent-encoded UTF-8');
      const label = name.slice(0, 40);
      if (value === undefined) throw new HubError('bad_request', `${safeLabel(label)}: not valid percent-encoded UTF-8`);
      const problem = textProblem(name) ?? textProblem(value);
      if (problem) throw new HubError('bad_request', `${safeLabel(label)}: ${problem}`);
    }
    return next();
  };
}

/** Percent-decoding as URLSearchParams does (`+` is a space), or undefined when it is not UTF-8. */
function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** A parameter name fit to echo in an error message (its hostile characters dropped). */
function safeLabel(name: string): string {
  return name.replace(/[\u0000-\u001f\uD800-\uDFFF]/g, '') || '(query)';
}
