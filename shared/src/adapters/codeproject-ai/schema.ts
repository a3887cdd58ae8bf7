import { z } from 'zod';
import { shortText } from '../reader/common.ts';

/**
 * A CodeProject.AI ALPR answer (docs/camera-formats.md "CodeProject.AI ALPR"), bare or in an
 * `ai_dump` list, with the relay's `camera` and `timestamp` when it adds them.
 */
export const predictionSchema = z.object({
  plate: z.string().max(64).nullish(),
  /** `Plate: <text>`, the only plate field of older module versions. */
  label: z.string().max(80).nullish(),
  /** 0..1. */
  confidence: z.number().nullish(),
});

export const answerSchema = z.object({
  success: z.boolean().nullish(),
  predictions: z.array(z.unknown()).max(50).nullish(),
  /** `Mon, 14 Oct 2024 18:04:11 GMT` (RFC 1123; some bridges omit the comma). */
  timestampUTC: z.string().max(64).nullish(),
  error: z.string().max(500).nullish(),
});

export const relaySchema = z.object({
  camera: shortText,
  timestamp: z.union([z.string().max(64), z.number()]).nullish(),
  ai_dump: z
    .array(z.object({ api: z.string().max(40).nullish(), found: z.unknown() }))
    .max(20)
    .nullish(),
});
