import { z } from 'zod';
import { shortText } from '../reader/common.ts';

/**
 * The fields of the OpenALPR agent's posts this adapter reads (docs/camera-formats.md "OpenALPR
 * agent"). Confidences are 0..100; times epoch ms in a group, epoch s in the open-source
 * daemon's results (the parser accepts both).
 */
const named = z
  .array(z.object({ name: shortText, confidence: z.number().nullish() }))
  .max(50)
  .nullish();

export const groupSchema = z.object({
  data_type: z.literal('alpr_group'),
  epoch_start: z.number(),
  best_uuid_epoch_ms: z.number().nullish(),
  camera_id: shortText,
  site_id: shortText,
  agent_uid: shortText,
  best_uuid: z.string().max(200).nullish(),
  best_plate_number: z.string().max(64).nullish(),
  best_confidence: z.number().nullish(),
  best_region: z.string().max(20).nullish(),
  best_plate: z.object({ region: z.string().max(20).nullish() }).nullish(),
  vehicle: z.object({ color: named, make: named, make_model: named, body_type: named }).nullish(),
});

export const resultSchema = z.object({
  plate: z.string().max(64).nullish(),
  confidence: z.number().nullish(),
  region: z.string().max(20).nullish(),
  epoch_time: z.number().nullish(),
  /** alprd's other readings, best first (`max_plate_results`, 10 by default); confidence 0..100. */
  candidates: z
    .array(z.object({ plate: z.string().max(64).nullish(), confidence: z.number().nullish() }))
    .max(50)
    .nullish(),
});

export const resultsSchema = z.object({
  data_type: z.literal('alpr_results').nullish(),
  uuid: z.string().max(200).nullish(),
  epoch_time: z.number().nullish(),
  camera_id: shortText,
  site_id: shortText,
  agent_uid: shortText,
  results: z.array(z.unknown()).max(50),
});
