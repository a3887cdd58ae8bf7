import { z } from 'zod';

/**
 * The parts of a vendor_b event object (docs/camera-formats.md "vendor_b event object", "vendor_b
 * plate location") this adapter reads. Only the fields we use are checked; unknown fields are
 * dropped, so a firmware that adds or reshapes an unrelated field does not break parsing. Every
 * read field is `nullish`: Protect sends `null` for "not yet known" (e.g. `end` while the event is
 * in progress).
 */

const attributeValueSchema = z.object({ val: z.string().nullish(), confidence: z.number().nullish() }).nullish();

export const thumbnailSchema = z.object({
  type: z.string().nullish(),
  name: z.string().nullish(),
  confidence: z.number().nullish(),
  clockBestWall: z.number().nullish(),
  attributes: z.object({ vehicleType: attributeValueSchema, color: attributeValueSchema }).nullish(),
  group: z
    .object({
      matchedName: z.string().nullish(),
      name: z.string().nullish(),
      confidence: z.number().nullish(),
    })
    .nullish(),
});
export type Thumbnail = z.infer<typeof thumbnailSchema>;

export const legacyPlateSchema = z.object({
  name: z.string().nullish(),
  confidenceLevel: z.number().nullish(),
});

export const eventSchema = z.object({
  id: z.string().nullish(),
  modelKey: z.string().nullish(),
  type: z.string().nullish(),
  start: z.number().nullish(),
  end: z.number().nullish(),
  camera: z.string().nullish(),
  cameraId: z.string().nullish(),
  device: z.string().nullish(),
  thumbnail: z.string().nullish(),
  smartDetectTypes: z.array(z.string()).nullish(),
  metadata: z
    .object({
      detectedThumbnails: z.array(thumbnailSchema).nullish(),
      licensePlate: legacyPlateSchema.nullish(),
      // A type definition declares a string; no sample has one. Other types: ignored.
      direction: z.unknown().optional(),
    })
    .nullish(),
});
export type VendorBEvent = z.infer<typeof eventSchema>;

/** Event types that can carry a plate (docs/camera-formats.md "vendor_b event object"); motion, ring, access... never do. */
export const SMART_EVENT_TYPES: ReadonlySet<string> = new Set(['smartDetectZone', 'smartDetectLine', 'smartDetectLoiterZone']);

/** Thumbnail types that can carry plate text (docs/camera-formats.md "vendor_b plate location": vehicle, licensePlate). */
export const PLATE_THUMBNAIL_TYPES: ReadonlySet<string> = new Set(['vehicle', 'licensePlate']);

/** `a.b[0].c: message` for the first zod issue, for a log line. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid event';
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `event${path}: ${issue.message}`;
}
