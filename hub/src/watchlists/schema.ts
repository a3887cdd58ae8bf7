import { z } from 'zod';
import { safeText } from '@alpr/shared/text/hostile-text';
import { watchlistPrioritySchema } from '../db/schema/watchlists.ts';
import { MAX_NOTES_LENGTH } from './csv.ts';
import { MAX_RETRO_HUNT_DAYS } from './hunt.ts';
import { ruleFields } from './scope-schema.ts';

/** Request bodies of the watchlist API (docs/watchlists.md). Unknown fields are refused. */
const name = safeText(z.string().trim().min(1, 'name must not be empty').max(100));
const description = safeText(z.string().max(2000)).nullable();

export const createWatchlistBodySchema = z
  .object({
    name,
    description: description.optional(),
    priority: watchlistPrioritySchema.optional(),
    is_active: z.boolean().optional(),
    ocr_tolerant: z.boolean().optional(),
    forgive_one_misread: z.boolean().optional(),
    verification_required: z.boolean().optional(),
    /** Days of reads searched for a plate added by hand; 0 = none (docs/watchlists.md "Retro-hunt"). */
    retro_hunt_days: z.number().int().min(0).max(MAX_RETRO_HUNT_DAYS).optional(),
    /** Kind, mode, scope and ignore lists (docs/watchlists.md "Scopes"). */
    ...ruleFields,
  })
  .strict();

export const updateWatchlistBodySchema = createWatchlistBodySchema
  .partial()
  .strict()
  .refine(
    (b) => Object.keys(b).length > 0,
    'nothing to change: send at least one of name, description, priority, is_active, ocr_tolerant, forgive_one_misread, verification_required, retro_hunt_days, mode, scope, ignore_lists',
  );

export const entryBodySchema = z
  .object({
    plate: safeText(z.string().min(1).max(40)),
    notes: safeText(z.string().max(MAX_NOTES_LENGTH)).nullable().optional(),
    /** From then on the entry matches nothing (docs/watchlists.md "Expiry and priority"). */
    expires_at: z.string().datetime({ offset: true }).nullable().optional(),
    priority: watchlistPrioritySchema.nullable().optional(),
  })
  .strict();

export const updateEntryBodySchema = z.object({ notes: safeText(z.string().max(MAX_NOTES_LENGTH)).nullable() }).strict();

export type CreateWatchlistBody = z.infer<typeof createWatchlistBodySchema>;
export type UpdateWatchlistBody = z.infer<typeof updateWatchlistBodySchema>;
