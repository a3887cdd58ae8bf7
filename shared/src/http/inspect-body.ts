import { findHostileText, textProblem } from '../text/hostile-text.ts';
import { EDGE_JSON_LIMITS, jsonShapeProblem, type JsonShapeLimits } from './json-shape.ts';

/**
 * The body check both servers run once, at their HTTP edge, before any route sees the
 * request (docs/security.md "Hostile input"). Pure: bytes and a content type in, a verdict
 * out; each server's middleware reads the bytes and maps the verdict to its error body.
 */
export type BodyVerdict = { ok: true } | { ok: false; code: 'bad_request'; message: string };

export type BodyEncoding = 'json' | 'urlencoded' | 'multipart' | 'other';

/** `application/json`, `application/*+json`, the two HTML form encodings, or anything else. */
export function bodyEncoding(contentType: string | undefined | null): BodyEncoding {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'urlencoded';
  if (type === 'multipart/form-data') return 'multipart';
  return 'other';
}

const refuse = (message: string): BodyVerdict => ({ ok: false, code: 'bad_request', message });
const utf8 = new TextDecoder('utf-8', { fatal: true });

function hostile(value: unknown): BodyVerdict {
  const found = findHostileText(value);
  return found ? refuse(`invalid request body: ${found.field}: ${found.problem}`) : { ok: true };
}

/** JSON: UTF-8, shape limits before parsing, valid syntax, then the text rule everywhere. */
export function inspectJson(bytes: Uint8Array, limits: JsonShapeLimits = EDGE_JSON_LIMITS): BodyVerdict {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return refuse('request body is not valid UTF-8');
  }
  if (text.trim() === '') return { ok: true };
  const shape = jsonShapeProblem(bytes, limits);
  if (shape) return refuse(`request body refused: ${shape}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('request body must be JSON');
  }
  return hostile(value);
}

/**
 * HTML forms, parsed with the same WHATWG parser Hono's `parseBody` uses, so a body that
 * passes here parses there: a multipart body without a boundary or cut short is a 400 here
 * instead of a `TypeError` (500) inside a route. Field names and text values follow the
 * text rule; file parts are the route's business.
 */
export async function inspectForm(bytes: Uint8Array<ArrayBuffer>, contentType: string, limits: JsonShapeLimits = EDGE_JSON_LIMITS): Promise<BodyVerdict> {
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return refuse(bodyEncoding(contentType) === 'multipart' ? 'malformed multipart/form-data body' : 'malformed form body');
  }
  let count = 0;
  for (const [name, value] of form) {
    count += 1;
    if (count > limits.maxItems) return refuse(`request body refused: a form holds more than ${limits.maxItems} fields`);
    const nameProblem = textProblem(name);
    if (nameProblem) return refuse(`invalid request body: a field name ${nameProblem}`);
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return refuse(`invalid request body: ${name}: ${problem}`);
    }
  }
  return { ok: true };
}

export async function inspectBody(
  bytes: Uint8Array<ArrayBuffer>,
  contentType: string | undefined | null,
  limits: JsonShapeLimits = EDGE_JSON_LIMITS,
): Promise<BodyVerdict> {
  const encoding = bodyEncoding(contentType);
  if (encoding === 'json') return inspectJson(bytes, limits);
  if ((encoding === 'urlencoded' || encoding === 'multipart') && contentType) return inspectForm(bytes, contentType, limits);
  return { ok: true };
}
