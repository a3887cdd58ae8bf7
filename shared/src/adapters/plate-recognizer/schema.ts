import { z } from 'zod';
import { shortText } from '../reader/common.ts';

/**
 * The parts of a Plate Recognizer webhook this adapter reads (docs/camera-formats.md "Plate
 * Recognizer webhook"). Stream and Snapshot share the layout `{ hook, data: { camera_id,
 * timestamp, results[] } }`; only the fields used are checked, unknown ones dropped.
 */
const scored = z.object({ score: z.number().nullish() });

export const resultSchema = z.object({
  plate: z.string().max(64).nullish(),
  /** OCR confidence 0..1. `dscore` is the plate detection score, kept out of `confidence`. */
  score: z.number().nullish(),
  region: z.object({ code: z.string().max(20).nullish() }).nullish(),
  vehicle: scored.extend({ type: z.string().max(50).nullish() }).nullish(),
  /** Only with the make/model/colour option: lists, best first. */
  model_make: z.array(scored.extend({ make: shortText, model: shortText })).nullish(),
  color: z.array(scored.extend({ color: shortText })).nullish(),
  /** The engine's other readings, best first (up to 10 by default); `score` 0..1 when sent. */
  candidates: z
    .array(z.object({ plate: z.string().max(64).nullish(), score: z.number().nullish() }))
    .max(50)
    .nullish(),
});

export const webhookSchema = z.object({
  hook: z
    .object({
      id: shortText,
      event: z.string().max(50).nullish(),
    })
    .nullish(),
  data: z.object({
    camera_id: shortText,
    /** UTC: Stream `2021-09-29T05:56:13.606935Z`, Snapshot `2025-09-09 23:22:38.030345`. */
    timestamp: z.string().max(64).nullish(),
    filename: z.string().max(300).nullish(),
    results: z.array(z.unknown()).max(50),
  }),
});
