import { z } from 'zod';
import { textProblem } from '../text/hostile-text.ts';

/** Enum tuples of the common detection format every adapter produces (docs/normalization.md). */
export const DIRECTIONS = ['entering', 'exiting', 'unknown'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const VEHICLE_TYPES = ['car', 'truck', 'motorcycle', 'bus', 'van'] as const;
export type VehicleType = (typeof VEHICLE_TYPES)[number];

/** Lowercase hex, no separators (normalization rule 2 in docs/normalization.md). 12 digits for EUI-48. */
export const MAC_PATTERN = /^[0-9a-f]{12}$/;

/**
 * Normalized plate text: uppercase letters (Unicode letters included, so a non-Latin plate
 * survives) and digits, nothing else. 1..32 characters: longer reads are OCR garbage.
 */
export const PLATE_TEXT_PATTERN = /^[\p{Lu}\p{Lo}\p{Nd}]{1,32}$/u;

/** ISO 8601 UTC with milliseconds, as produced by `Date#toISOString`. */
export const UTC_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const cameraRefSchema = z.object({
  id: z.string().min(1).max(100),
  mac: z.string().regex(MAC_PATTERN, 'camera.mac must be 12 lowercase hex digits'),
});

/**
 * The camera's other readings of the same plate, best first, where the vendor sends them
 * (Plate Recognizer `candidates[]`, OpenALPR `candidates[]`; docs/protocol.md
 * "plate.candidates"). At most 10: Plate Recognizer and alprd send up to 10 by default.
 */
export const MAX_PLATE_CANDIDATES = 10;
export const plateCandidateSchema = z.object({
  text: z.string().regex(PLATE_TEXT_PATTERN, 'plate.candidates[].text must be normalized (uppercase letters and digits)'),
  confidence: z.number().min(0).max(1).optional(),
});
export type PlateCandidate = z.infer<typeof plateCandidateSchema>;

export const plateSchema = z.object({
  text: z.string().regex(PLATE_TEXT_PATTERN, 'plate.text must be normalized (uppercase letters and digits)'),
  confidence: z.number().min(0).max(1),
  region: z.string().min(1).max(50).optional(),
  candidates: z.array(plateCandidateSchema).max(MAX_PLATE_CANDIDATES).optional(),
});

export const vehicleSchema = z.object({
  direction: z.enum(DIRECTIONS).optional(),
  vehicle_type: z.enum(VEHICLE_TYPES).optional(),
  color: z.string().min(1).max(50).optional(),
  brand: z.string().min(1).max(50).optional(),
  model: z.string().min(1).max(50).optional(),
});

/**
 * Camera-side facts kept beside a detection, outside the common fields: the camera's own
 * capture time when the appliance corrected it (`camera_time`), raw vendor codes. Small and
 * flat: up to 16 lowercase keys, string values up to 200 characters. Not covered by the
 * hub's hash chain (docs/protocol.md "attributes").
 */
export const attributesSchema = z
  .record(
    z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'attribute names are lowercase words'),
    z
      .string()
      .max(200)
      .refine((v) => textProblem(v) === undefined, 'attribute values must not hold NUL or lone surrogates'),
  )
  .refine((o) => Object.keys(o).length <= 16, 'at most 16 attributes');

/**
 * The common detection format every adapter yields (metadata only; image bytes travel
 * beside it, see `DetectionImages`). This is the wire contract between appliance and hub.
 */
export const detectionSchema = z.object({
  detection_id: z.string().min(1).max(128),
  timestamp: z.string().regex(UTC_TIMESTAMP_PATTERN, 'timestamp must be ISO 8601 UTC with milliseconds'),
  camera: cameraRefSchema,
  plate: plateSchema,
  vehicle: vehicleSchema.optional(),
  attributes: attributesSchema.optional(),
});
export type Detection = z.infer<typeof detectionSchema>;

export const IMAGE_KINDS = ['full_scene', 'plate_crop'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

/** JPEG bytes keyed by the wire image names; a zero-length image is "no image". */
export type DetectionImages = Partial<Record<ImageKind, Uint8Array>>;
