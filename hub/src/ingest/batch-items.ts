import { batchDetectionSchema, type BatchDetection, type BatchItemResult, type ImageRef } from '@alpr/shared/protocol/batch';
import { sha256Hex } from '../images/image-store.ts';
import { MAX_PLATE_LENGTH } from '@alpr/shared/detection/limits';

/**
 * Per-item validation of a batch, pure: each item either becomes a detection ready to store
 * (with its image bytes, hashes checked) or a `rejected` result with a one-line reason.
 * Rejections are final: the appliance dead-letters them instead of retrying (protocol.md),
 * so only what can never succeed is rejected here; server trouble is thrown elsewhere.
 */
export interface ReadyImage {
  sha256: string;
  size: number;
  bytes: Uint8Array;
}

export interface ReadyDetection {
  /** Position in the uploaded `detections` array. */
  index: number;
  detection: BatchDetection;
  capturedAt: Date;
  fullScene?: ReadyImage;
  plateCrop?: ReadyImage;
}

export type ItemVerdict = { ok: true; ready: ReadyDetection } | { ok: false; result: BatchItemResult };

/** Earliest capture time accepted: a camera clock reset to 1970 is still stored, not refused. */
const MIN_CAPTURE_YEAR = 1970;

/** What an item's capture time is checked against. */
export interface CaptureWindow {
  /** The hub's clock. */
  now: Date;
  /** How far ahead of `now` a capture time may be (HUB_MAX_CAPTURE_AHEAD_SECONDS). */
  maxAheadMs: number;
}

export function prepareItems(items: readonly unknown[], parts: ReadonlyMap<string, Uint8Array>, window: CaptureWindow): ItemVerdict[] {
  // Several items may share a part; hash each part once.
  const hashes = new Map<string, string>();
  const hashOf = (name: string, bytes: Uint8Array): string => {
    let hash = hashes.get(name);
    if (hash === undefined) {
      hash = sha256Hex(bytes);
      hashes.set(name, hash);
    }
    return hash;
  };
  return items.map((item, index) => prepareItem(item, index, parts, hashOf, window));
}

function prepareItem(
  item: unknown,
  index: number,
  parts: ReadonlyMap<string, Uint8Array>,
  hashOf: (name: string, bytes: Uint8Array) => string,
  window: CaptureWindow,
): ItemVerdict {
  const reject = (reason: string): ItemVerdict => ({
    ok: false,
    result: { index, detection_id: rawDetectionId(item), status: 'rejected', reason },
  });
  const parsed = batchDetectionSchema.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return reject(`${where}${issue?.message ?? 'invalid detection'}`);
  }
  const detection = parsed.data;
  const unstorable = unstorableText(detection);
  if (unstorable) return reject(`${unstorable}: contains a NUL or an unpaired surrogate`);
  if (Array.from(detection.plate.text).length > MAX_PLATE_LENGTH) {
    return reject(`plate.text: longer than ${MAX_PLATE_LENGTH} characters`);
  }
  const capturedAt = new Date(detection.timestamp);
  if (Number.isNaN(capturedAt.getTime()) || capturedAt.toISOString() !== detection.timestamp) {
    return reject('timestamp: not a real date');
  }
  if (capturedAt.getUTCFullYear() < MIN_CAPTURE_YEAR) return reject(`timestamp: before ${MIN_CAPTURE_YEAR}`);
  // A time far in the future is a broken camera clock, not a sighting: stored, it would sort
  // above every real detection and sit in the default partition (issue 10). Rejected per
  // item, so the rest of the batch is stored; the appliance dead-letters it with the reason.
  if (capturedAt.getTime() - window.now.getTime() > window.maxAheadMs) {
    return reject(`timestamp: more than ${formatSpan(window.maxAheadMs)} ahead of the hub's clock (${window.now.toISOString()})`);
  }

  const ready: ReadyDetection = { index, detection, capturedAt };
  for (const kind of ['full_scene', 'plate_crop'] as const) {
    const ref = detection.images?.[kind];
    if (!ref) continue;
    const image = checkImage(ref, parts, hashOf);
    if (typeof image === 'string') return reject(`images.${kind}: ${image}`);
    if (kind === 'full_scene') ready.fullScene = image;
    else ready.plateCrop = image;
  }
  return { ok: true, ready };
}

function formatSpan(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function checkImage(ref: ImageRef, parts: ReadonlyMap<string, Uint8Array>, hashOf: (name: string, bytes: Uint8Array) => string): ReadyImage | string {
  const bytes = parts.get(ref.part);
  if (!bytes) return `part ${ref.part} is missing`;
  if (bytes.byteLength !== ref.size) return `part ${ref.part} has ${bytes.byteLength} bytes, ${ref.size} declared`;
  const sha256 = hashOf(ref.part, bytes);
  if (sha256 !== ref.sha256) return `part ${ref.part} does not match its declared sha256`;
  return { sha256, size: bytes.byteLength, bytes };
}

/**
 * PostgreSQL text refuses NUL, and an unpaired surrogate would be stored as U+FFFD while the
 * hash chain hashed the original: both are refused up front so one item cannot fail the
 * batch's transaction or break the chain. Returns the offending field path.
 */
const UNSTORABLE = /\u0000|\p{Cs}/u;

function unstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path || 'value' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = unstorableText(child, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/** The item's detection_id for the result, when it has a usable one. */
function rawDetectionId(item: unknown): string | null {
  if (typeof item !== 'object' || item === null) return null;
  const id = (item as Record<string, unknown>).detection_id;
  return typeof id === 'string' && id.length <= 128 ? id : null;
}
