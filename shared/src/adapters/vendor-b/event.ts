import type { AdapterContext, ImageFetch, ParsedDetection } from '../types.ts';
import { buildDetection } from '../../detection/build.ts';
import { normalizeConfidence, normalizeDirection, normalizePlateText, normalizeVehicleType } from '../../detection/normalize.ts';
import { epochMsToDate } from '../../detection/time.ts';
import type { Thumbnail, VendorBEvent } from './event-schema.ts';
import { PLATE_THUMBNAIL_TYPES, SMART_EVENT_TYPES, describeIssue, eventSchema } from './event-schema.ts';

/**
 * What one vendor_b event amounts to. `ended` is false while Protect still reports
 * `end: null`; callers decide whether an unfinished event may be emitted (the pull list
 * waits, a stream flush does not).
 */
export type EventVerdict =
  | { kind: 'not_candidate' }
  | { kind: 'error'; reason: string }
  | { kind: 'no_plate'; ended: boolean }
  | { kind: 'detection'; ended: boolean; parsed: ParsedDetection };

interface PlateRead {
  text: string;
  source: 'group.matchedName' | 'name' | 'licensePlate.name';
  thumbnail?: Thumbnail;
  /** 0..100, see `pickConfidence`. */
  confidence: unknown;
}

/** Only smart-detect events carry plates (docs/camera-formats.md "vendor_b event object"); a partial payload without `type` counts
 *  when it still says `licensePlate` in `smartDetectTypes` (the classification). */
export function isCandidate(event: VendorBEvent): boolean {
  if (typeof event.type === 'string') return SMART_EVENT_TYPES.has(event.type);
  return event.smartDetectTypes?.includes('licensePlate') ?? false;
}

const plateOf = (t: Thumbnail): { text: string; source: PlateRead['source'] } | undefined => {
  const matched = t.group?.matchedName;
  if (normalizePlateText(matched)) return { text: matched as string, source: 'group.matchedName' };
  if (normalizePlateText(t.name)) return { text: t.name as string, source: 'name' };
  return undefined;
};

/**
 * The best thumbnail, as Home Assistant picks it: one with a plate first, then the
 * higher detection confidence, then the later `clockBestWall` (the more recent best frame).
 */
export function bestThumbnail(thumbnails: readonly Thumbnail[]): Thumbnail | undefined {
  const rank = (t: Thumbnail): number[] => [plateOf(t) ? 1 : 0, t.confidence ?? -1, t.clockBestWall ?? -1];
  const outranks = (a: number[], b: number[]): boolean => {
    const i = a.findIndex((value, k) => value !== b[k]);
    return i >= 0 && (a[i] as number) > (b[i] as number);
  };
  let best: { thumbnail: Thumbnail; rank: number[] } | undefined;
  for (const thumbnail of thumbnails) {
    if (!thumbnail.type || !PLATE_THUMBNAIL_TYPES.has(thumbnail.type)) continue;
    const r = rank(thumbnail);
    if (!best || outranks(r, best.rank)) best = { thumbnail, rank: r };
  }
  return best?.thumbnail;
}

/**
 * Confidence (docs/camera-formats.md "vendor_b plate location"), decided in docs/adapters.md:
 * `group.confidence` is the plate match score, the closest thing to an OCR confidence; the
 * thumbnail `confidence` is the object-detection score (warns it is not OCR) and is used only when
 * there is no group score; the legacy shape has `confidenceLevel`. All are 0..100; an out-of-range
 * value falls through to the next candidate.
 */
function pickConfidence(read: PlateRead): number | undefined {
  const candidates = read.thumbnail ? [read.thumbnail.group?.confidence, read.thumbnail.confidence] : [read.confidence];
  for (const c of candidates) {
    const value = normalizeConfidence(c, 'percent');
    if (value !== undefined) return value;
  }
  return undefined;
}

function readPlate(event: VendorBEvent): PlateRead | undefined {
  const thumbnail = bestThumbnail(event.metadata?.detectedThumbnails ?? []);
  const fromThumbnail = thumbnail ? plateOf(thumbnail) : undefined;
  if (thumbnail && fromThumbnail) return { ...fromThumbnail, thumbnail, confidence: undefined };
  const legacy = event.metadata?.licensePlate;
  if (legacy && normalizePlateText(legacy.name)) {
    return { text: legacy.name as string, source: 'licensePlate.name', confidence: legacy.confidenceLevel };
  }
  return undefined;
}

/** Event ids are 24 hex characters (docs/camera-formats.md "vendor_b event object"); anything else must not reach a URL path. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The event id, or the id inside a `thumbnail` value `e-<id>` when the event has none. */
export function eventIdOf(event: VendorBEvent): string | undefined {
  if (event.id && event.id.trim() !== '') return event.id.trim();
  const thumb = event.thumbnail?.trim();
  return thumb ? thumb.replace(/^e-/, '') : undefined;
}

/** Current thumbnail path (docs/camera-formats.md "vendor_b images", Protect ≥ 1.21), not the older `thumbnails/{id}`. */
export function thumbnailFetch(eventId: string | undefined): ImageFetch[] {
  if (!eventId || !SAFE_ID.test(eventId)) return [];
  return [{ kind: 'full_scene', path: `/proxy/protect/api/events/${eventId}/thumbnail` }];
}

/**
 * The camera MAC: the bootstrap map (docs/camera-formats.md "vendor_b camera identity") first; the
 * single configured camera only when it is not pinned to a different camera id, so one camera's MAC
 * is never given to another.
 */
function cameraMacOf(cameraId: string | undefined, context: AdapterContext): string | undefined {
  const mapped = cameraId ? context.cameras?.get(cameraId)?.mac : undefined;
  if (mapped) return mapped;
  const single = context.camera;
  if (!single?.mac) return undefined;
  if (single.id && cameraId && single.id !== cameraId) return undefined;
  return single.mac;
}

/** Turn one raw (already JSON-parsed) vendor_b event into a verdict. Never throws. */
export function evaluateEvent(raw: unknown, context: AdapterContext): EventVerdict {
  const parsedEvent = eventSchema.safeParse(raw);
  if (!parsedEvent.success) return { kind: 'error', reason: describeIssue(parsedEvent.error) };
  const event = parsedEvent.data;
  if (!isCandidate(event)) return { kind: 'not_candidate' };
  const ended = typeof event.end === 'number';
  const read = readPlate(event);
  if (!read) return { kind: 'no_plate', ended };

  const cameraId = event.camera ?? event.cameraId ?? event.device ?? context.camera?.id ?? undefined;
  const eventId = eventIdOf(event);
  const thumbnail = read.thumbnail;
  const direction = event.metadata?.direction;
  const built = buildDetection({
    vendor: 'vendor_b',
    sourceId: eventId,
    // Times are epoch ms UTC (docs/camera-formats.md "vendor_b camera identity"): the best frame
    // when known, else the event start.
    timestamp: epochMsToDate(thumbnail?.clockBestWall ?? undefined) ?? epochMsToDate(event.start ?? undefined),
    cameraId,
    cameraMac: cameraMacOf(cameraId, context),
    plateText: read.text,
    confidence: pickConfidence(read),
    direction: typeof direction === 'string' ? normalizeDirection(direction, context.directionMapping) : 'unknown',
    vehicleType: normalizeVehicleType(thumbnail?.attributes?.vehicleType?.val),
    color: thumbnail?.attributes?.color?.val ?? undefined,
  });
  if (built.kind === 'no_plate') return { kind: 'no_plate', ended };
  if (built.kind === 'invalid') return { kind: 'error', reason: built.reason };
  const rawFields: Record<string, string> = { plate: read.text, plate_source: read.source };
  if (event.type) rawFields.event_type = event.type;
  return {
    kind: 'detection',
    ended,
    parsed: { detection: built.detection, images: {}, fetchImages: thumbnailFetch(eventId), raw: rawFields },
  };
}
