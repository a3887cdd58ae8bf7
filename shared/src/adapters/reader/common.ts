import { createHash } from 'node:crypto';
import { z } from 'zod';
import { buildDetection } from '../../detection/build.ts';
import { normalizeMac } from '../../detection/normalize.ts';
import { parseCameraTime } from '../../detection/time.ts';
import type { DetectionDraft } from '../../detection/build.ts';
import type { AdapterContext, ParseInput, ParseOutcome, ParsedDetection } from '../types.ts';
import { parseJsonBytes } from '../vendor-b/json.ts';
import type { JsonShapeLimits } from '../../http/json-shape.ts';

/**
 * What the plate-reader sources (Plate Recognizer, CodeProject.AI, OpenALPR, the generic JSON;
 * docs/readers.md) share: the JSON bounds, the camera identity when a reader has no MAC, times
 * checked for sense, one detection built the common way.
 */

/**
 * A reader post nests at most ~6 deep (Plate Recognizer: hook, data, results, vehicle, box) and
 * lists a handful of plates with up to 10 candidates each; 16 deep and 200 members leave room
 * and bound the work on a hostile body before any validation runs.
 */
export const READER_JSON_LIMITS: JsonShapeLimits = { maxDepth: 16, maxItems: 200, maxTotalItems: 2000 };

/** A JSON object body, or the reason it is not one. */
export function readJsonObject(input: ParseInput): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  const parsed = parseJsonBytes(input.body, READER_JSON_LIMITS);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the body is not a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * A stable stand-in MAC for a reader camera that has none (software readers name cameras by a
 * string such as `camera-1`): `02` (locally administered, unicast) and 10 hex digits of
 * SHA-256 over source and camera name. The same camera always gets the same MAC, so dedupe
 * keys and the hub's per-camera views hold across restarts; a configured `mac` wins.
 */
export function readerMac(source: string, cameraName: string): string {
  return `02${createHash('sha256').update(`${source}\u0000${cameraName}`).digest('hex').slice(0, 10)}`;
}

/**
 * Reads from before 2000 or after 2100 are a broken reader clock or a hostile body, not a plate
 * read: refused as an item error rather than stored with a nonsense time.
 */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);

const sane = (d: Date | undefined): Date | undefined => (d && d.getTime() >= EARLIEST_MS && d.getTime() < LATEST_MS ? d : undefined);

/**
 * A reader time: ISO 8601 (an offset-less one read in the camera's zone, else UTC), or a number
 * of epoch seconds or milliseconds (below 1e11 is seconds: 1e11 s is the year 5138).
 */
export function readerTime(value: unknown, timezone?: string): Date | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) return undefined;
    return sane(new Date(value < 1e11 ? value * 1000 : value));
  }
  if (typeof value !== 'string' || value.length > 64) return undefined;
  // Plate Recognizer writes `2021-09-29 05:56:13.606935+00:00` (a space, microseconds).
  return sane(parseCameraTime(value.replace(' ', 'T'), timezone));
}

/** The camera a read belongs to: the configured one when there is one, else the name the reader gives. */
export function cameraOf(source: string, named: string | undefined, context: AdapterContext): { id: string | undefined; mac: string } {
  const id = context.camera?.id ?? named;
  const mac = normalizeMac(context.camera?.mac) ?? readerMac(source, named ?? context.camera?.id ?? 'default');
  return { id, mac };
}

/** Ids from a reader go into the detection id: a small safe alphabet, 100 characters at most. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,100}$/;

export const sourceIdOf = (source: string, id: unknown): string | undefined =>
  typeof id === 'string' && SAFE_ID.test(id) ? `${source}:${id}` : typeof id === 'number' && Number.isSafeInteger(id) ? `${source}:${id}` : undefined;

/** Control characters (NUL above all: PostgreSQL text refuses it) have no place in a name. */
export const CONTROL = /[\u0000-\u001f\u007f]/;

/** Reader names (camera ids, colours, makes) as short strings: a number is taken as its digits. */
export const shortText = z
  .union([z.string().max(200), z.number()])
  .transform((v) => String(v).trim().slice(0, 100))
  .refine((v) => !CONTROL.test(v), 'control characters are not allowed')
  .nullish();

/** Add one read to an outcome: a detection, a no-plate (ignored), or an item error. */
export function addRead(outcome: ParseOutcome, item: number, draft: DetectionDraft, raw?: Record<string, string>): void {
  if (!draft.timestamp) {
    outcome.errors.push({ item, reason: 'missing or absurd time (readers must send a time between 2000 and 2100)' });
    return;
  }
  const built = buildDetection(draft);
  if (built.kind === 'no_plate') outcome.ignored += 1;
  else if (built.kind === 'invalid') outcome.errors.push({ item, reason: built.reason });
  else {
    const parsed: ParsedDetection = { detection: built.detection, images: {}, fetchImages: [], ...(raw ? { raw } : {}) };
    outcome.detections.push(parsed);
  }
}

/** `a.b[0].c: message` for the first zod issue. */
export function firstIssue(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (!issue) return `${root}: invalid`;
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `${root}${path}: ${issue.message}`;
}

/** Wrap a parser so a fault is a failure, never a throw (error rule 2 in docs/cameras.md). */
export function neverThrows(name: string, parse: (input: ParseInput, context: AdapterContext) => ParseOutcome) {
  return (input: ParseInput, context: AdapterContext): ParseOutcome => {
    try {
      return parse(input, context);
    } catch (error) {
      return { detections: [], errors: [], ignored: 0, failure: `${name} parser fault: ${String(error)}` };
    }
  };
}
