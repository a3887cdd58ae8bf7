import { z } from 'zod';
import { DIRECTIONS, VEHICLE_TYPES } from '../../detection/schema.ts';
import { CONTROL } from '../reader/common.ts';

/**
 * The generic reader JSON (docs/readers.md "Generic JSON"): for any reader we do not adapt.
 * One read, or `{ "reads": [...] }` with up to 50. Strict on what it needs (camera, plate,
 * time), so a sender learns of a mistake from the 400 at once, not from missing alerts.
 */
export const MAX_READS = 50;

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !CONTROL.test(v), 'control characters are not allowed');

export const readSchema = z.object({
  camera: text(100),
  plate: text(32),
  /** ISO 8601 with an offset or `Z`, or epoch milliseconds. */
  time: z.union([text(64), z.number()]),
  /** 0..1. */
  confidence: z.number().min(0).max(1).optional(),
  /** The sender's id of this read; a repeat with the same id is a duplicate. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'id: 1-100 of A-Z a-z 0-9 . _ : -')
    .optional(),
  region: text(50).optional(),
  direction: z.enum(DIRECTIONS).optional(),
  vehicle_type: z.enum(VEHICLE_TYPES).optional(),
  color: text(50).optional(),
  make: text(50).optional(),
  model: text(50).optional(),
});
export type GenericRead = z.infer<typeof readSchema>;

export const batchSchema = z.object({ reads: z.array(z.unknown()).min(1).max(MAX_READS) });
