import { z } from 'zod';

/**
 * One message of Frigate's `<topic_prefix>/events` topic (docs/readers.md "Frigate"): `type` and
 * the tracked object `before` and `after` the change. Only what a plate read needs is checked;
 * Frigate adds fields from release to release, so unknown ones pass.
 */

/** Frigate event ids are `<epoch seconds>.<micro>-<6 random>`; also what goes into our detection id and a URL path. */
export const FRIGATE_EVENT_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** `sub_label`: a string up to 0.13, `[name, score]` since 0.14, or null. */
const subLabel = z.union([z.string().max(200), z.tuple([z.string().max(200), z.number().nullable()]).rest(z.unknown()), z.null()]).optional();

export const frigateObjectSchema = z
  .object({
    id: z.string().regex(FRIGATE_EVENT_ID, 'id: 1-100 of A-Z a-z 0-9 . _ -'),
    camera: z.string().min(1).max(100),
    label: z.string().max(100).optional(),
    sub_label: subLabel,
    frame_time: z.number().nullish(),
    snapshot_time: z.number().nullish(),
    start_time: z.number().nullish(),
    end_time: z.number().nullish(),
    false_positive: z.boolean().nullish(),
    has_snapshot: z.boolean().nullish(),
    top_score: z.number().nullish(),
    /** Frigate 0.16+: its own plate recognition. */
    recognized_license_plate: z.string().max(64).nullish(),
    recognized_license_plate_score: z.number().nullish(),
  })
  .passthrough();
export type FrigateObject = z.infer<typeof frigateObjectSchema>;

export const frigateEventSchema = z.object({
  type: z.enum(['new', 'update', 'end']),
  before: z.unknown().optional(),
  after: frigateObjectSchema,
});
export type FrigateEvent = z.infer<typeof frigateEventSchema>;
