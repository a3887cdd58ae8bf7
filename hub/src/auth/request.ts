import type { Context } from 'hono';
import type { z } from 'zod';
import { clientIp } from '../platform/http/client-ip.ts';
import type { RequestMeta } from './context.ts';
import { AuthFailure } from './failure.ts';

export type BodyKind = 'json' | 'form';

/** Which encoding a POST uses; anything but JSON or an HTML form is refused (415). */
export function bodyKind(c: Context): BodyKind | null {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') return 'json';
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') return 'form';
  return null;
}

/**
 * The fields of a JSON object or form body (no encoding is prescribed; both accepted).
 * JSON numbers become strings so `{"code": 123456}` works like `code=123456`; a leading
 * zero is the client's problem (codes are documented as strings).
 */
export async function readFields(c: Context): Promise<Record<string, string>> {
  const kind = bodyKind(c);
  if (kind === null) throw new AuthFailure(400, 'Body must be application/json or an HTML form');
  if (kind === 'form') {
    const body = await c.req.parseBody();
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) if (typeof value === 'string') out[name] = value;
    return out;
  }
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    throw new AuthFailure(400, 'Request body must be JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new AuthFailure(400, 'Request body must be a JSON object');
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(json)) {
    if (typeof value === 'string') out[name] = value;
    else if (typeof value === 'number' && Number.isFinite(value)) out[name] = String(value);
  }
  return out;
}

/** Fields checked against a zod schema; the first problem becomes a 400 `detail`. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const parsed = schema.safeParse(await readFields(c));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AuthFailure(400, `Invalid field ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

export function requestMeta(c: Context): RequestMeta {
  return { ip: clientIp(c), userAgent: c.req.header('user-agent') ?? null };
}
