import type { Detection, Direction, PlateCandidate, VehicleType } from './schema.ts';
import { detectionSchema, MAX_PLATE_CANDIDATES } from './schema.ts';
import { normalizeAttribute, normalizeMac, normalizePlateText } from './normalize.ts';
import { toUtcIso } from './time.ts';
import { derivedDetectionId } from './ids.ts';

/** Raw-ish fields an adapter has gathered for one read, before the common rules apply. */
export interface DetectionDraft {
  vendor: string;
  /** The camera's own event id (vendor_a UUID or picName, vendor_b event id), if any. */
  sourceId?: string;
  timestamp: Date | undefined;
  cameraId: string | undefined;
  cameraMac: string | undefined;
  plateText: string | undefined;
  /** Already scaled to 0..1; a read with no confidence (vendor_a pull) is given 0, "not reported" (confidence.ts). */
  confidence: number | undefined;
  region?: string;
  direction?: Direction;
  vehicleType?: VehicleType;
  color?: unknown;
  brand?: unknown;
  model?: unknown;
  /** The source's other readings of the plate, best first, confidence already 0..1 (docs/protocol.md "plate.candidates"). */
  candidates?: ReadonlyArray<{ text: unknown; confidence?: number | undefined }>;
}

/**
 * The other readings, normalized like the plate: the read itself, unreadable and repeated
 * texts dropped, at most 10 (more is OCR noise nobody compares by eye).
 */
export function plateCandidates(plate: string, raw: DetectionDraft['candidates']): PlateCandidate[] {
  const out: PlateCandidate[] = [];
  const seen = new Set([plate]);
  for (const c of raw ?? []) {
    const text = normalizePlateText(typeof c.text === 'string' ? c.text : undefined);
    if (!text || seen.has(text)) continue;
    seen.add(text);
    out.push(c.confidence === undefined ? { text } : { text, confidence: c.confidence });
    if (out.length === MAX_PLATE_CANDIDATES) break;
  }
  return out;
}

export type BuildResult = { kind: 'detection'; detection: Detection } | { kind: 'no_plate' } | { kind: 'invalid'; reason: string };

/**
 * Apply the common normalization rules and validate against the wire schema. `no_plate`
 * (an `unknown` or empty read) is not an error: the camera saw a vehicle, not a plate.
 */
export function buildDetection(draft: DetectionDraft): BuildResult {
  const plate = normalizePlateText(draft.plateText);
  if (!plate) return { kind: 'no_plate' };
  if (!draft.timestamp || Number.isNaN(draft.timestamp.getTime())) {
    return { kind: 'invalid', reason: 'missing or invalid timestamp' };
  }
  const mac = normalizeMac(draft.cameraMac);
  if (!mac) return { kind: 'invalid', reason: 'no camera MAC: configure the camera MAC' };
  const timestamp = toUtcIso(draft.timestamp);
  const cameraId = draft.cameraId?.trim() || mac;
  const vehicle = {
    direction: draft.direction ?? 'unknown',
    vehicle_type: draft.vehicleType,
    color: normalizeAttribute(draft.color),
    brand: normalizeAttribute(draft.brand),
    model: normalizeAttribute(draft.model),
  };
  const others = plateCandidates(plate, draft.candidates);
  const candidate = {
    detection_id: draft.sourceId?.trim() || derivedDetectionId(draft.vendor, mac, timestamp, plate),
    timestamp,
    camera: { id: cameraId, mac },
    plate: {
      text: plate,
      confidence: draft.confidence ?? 0,
      ...(normalizeAttribute(draft.region) ? { region: normalizeAttribute(draft.region) } : {}),
      ...(others.length > 0 ? { candidates: others } : {}),
    },
    vehicle: Object.fromEntries(Object.entries(vehicle).filter(([, v]) => v !== undefined)),
  };
  const parsed = detectionSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', reason: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  return { kind: 'detection', detection: parsed.data };
}
