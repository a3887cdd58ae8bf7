import { z } from 'zod';
import { detectionSchema, IMAGE_KINDS } from '../detection/schema.ts';

/**
 * Batch upload, `POST /api/v1/detections/batch` (alias `/api/v1/events/batch`), as
 * multipart/form-data (docs/protocol.md):
 *   - part `metadata` (application/json): `BatchMetadata`;
 *   - one part per image, named by the `part` field of its `ImageRef`, `image/jpeg`.
 * Each image names its SHA-256 so the hub can prove it stored exactly the bytes the
 * appliance sent (a mismatch rejects that detection, never the whole batch).
 */
export const BATCH_METADATA_PART = 'metadata';
export const MAX_BATCH_DETECTIONS = 500;
/** Image part names: short ASCII tokens, so no header injection through names. */
export const IMAGE_PART_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const imageRefSchema = z.object({
  part: z.string().regex(IMAGE_PART_NAME),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z
    .number()
    .int()
    .min(1)
    .max(10 * 1024 * 1024),
});
export type ImageRef = z.infer<typeof imageRefSchema>;

export const batchDetectionSchema = detectionSchema.extend({
  images: z.partialRecord(z.enum(IMAGE_KINDS), imageRefSchema).optional(),
});
export type BatchDetection = z.infer<typeof batchDetectionSchema>;

/** Items are validated one by one on the hub, so one bad item does not sink its batch. */
export const batchMetadataSchema = z.object({
  detections: z.array(z.unknown()).min(1).max(MAX_BATCH_DETECTIONS),
});

export const RESULT_STATUSES = ['stored', 'duplicate', 'rejected'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const batchItemResultSchema = z.object({
  /** Position in the uploaded `detections` array. */
  index: z.number().int().min(0),
  detection_id: z.string().nullable(),
  status: z.enum(RESULT_STATUSES),
  /** The hub's record id (as a string), for stored and duplicate items. */
  id: z.string().optional(),
  reason: z.string().optional(),
});
export type BatchItemResult = z.infer<typeof batchItemResultSchema>;

export const backpressureSchema = z.object({
  active: z.boolean(),
  recommended_delay_seconds: z.number().int().min(0),
  reason: z.string(),
});
export type Backpressure = z.infer<typeof backpressureSchema>;

export const batchResponseSchema = z.object({
  accepted: z.number().int().min(0),
  results: z.array(batchItemResultSchema),
  backpressure: backpressureSchema.optional(),
});
export type BatchResponse = z.infer<typeof batchResponseSchema>;
