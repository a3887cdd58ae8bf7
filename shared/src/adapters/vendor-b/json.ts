import { jsonShapeProblem, type JsonShapeLimits } from '../../http/json-shape.ts';
import type { Result } from './result.ts';

/**
 * Nesting allowed in a vendor_b JSON payload. Real events nest about 6 deep (list, event,
 * metadata, detectedThumbnails, thumbnail, attributes, value); 64 is generous. The check
 * runs before JSON.parse because V8 parses deep input without a stack overflow but still
 * allocates one array per `[`: 5 MB of brackets cost ~300 ms and much memory per parse.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Members of one array or object. A real event list page holds 100 events (the pull's
 * `limit`), an event a handful of smart types and thumbnails. Checked before parsing: an
 * event with ~470,000 numbers in `smartDetectTypes` (1 MB, under the 2 MiB push cap) held
 * the appliance's only thread for 6.9 s while zod built one issue per element
 * (docs/performance.md "Bounded work per request").
 */
export const MAX_JSON_ITEMS = 1000;
/** Array elements in one payload: a 100-event page has about 900; 5,000 bounds zod's work to ~100 ms. */
export const MAX_JSON_ARRAY_ELEMENTS = 5000;

/** Bounds for bodies pushed to the appliance's open port (the default). */
export const PUSHED_JSON_LIMITS: JsonShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxItems: MAX_JSON_ITEMS, maxTotalItems: MAX_JSON_ARRAY_ELEMENTS };

/**
 * Bounds for a configured console's own replies (and files read by `npm run parse`). A real
 * console ignored `limit` and listed 1,351 events (848 KB) for one query; refusing that would
 * stall the camera on one time window forever while it shows as online. These replies are
 * already capped at 8 MiB by the camera client, about 13,000 events, so the item bounds sit
 * above what that size can hold and the byte cap is what binds; zod's work stays linear in it.
 */
export const PULLED_JSON_LIMITS: JsonShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxItems: 20_000, maxTotalItems: 250_000 };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 JSON with the depth and item limits; never throws. */
export function parseJsonBytes(bytes: Uint8Array, limits: JsonShapeLimits = PUSHED_JSON_LIMITS): Result<unknown> {
  const shape = jsonShapeProblem(bytes, limits);
  if (shape !== undefined) return { ok: false, reason: shape };
  try {
    return { ok: true, value: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return { ok: false, reason: 'not valid UTF-8 JSON' };
  }
}
