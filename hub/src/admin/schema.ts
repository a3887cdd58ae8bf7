import { z } from 'zod';
import { COLLECTOR_FIELD_LIMITS } from '../collectors/schema.ts';

/**
 * Bodies of the admin HTTP routes, in the wire's snake_case. Limits mirror the verbs'
 * schemas (collectors/schema.ts, docs/admin-api.md). Objects are strict: an admin typing
 * `grace_hours` instead of `grace_period_hours` gets a 400, not a silent default of 24 h.
 */
const L = COLLECTOR_FIELD_LIMITS;
const configObject = z.record(z.string(), z.unknown());

export const createCollectorBodySchema = z
  .object({
    site_name: z.string().trim().min(1).max(L.siteName),
    site_address: z.string().trim().max(L.siteAddress).optional(),
    gps_latitude: z.number().min(-90).max(90).optional(),
    gps_longitude: z.number().min(-180).max(180).optional(),
    /** Initial configuration handed over at claim (config_version 1). */
    config: configObject.optional(),
  })
  .strict()
  // Half a position is a typo, not a location.
  .refine((b) => (b.gps_latitude === undefined) === (b.gps_longitude === undefined), {
    message: 'gps_latitude and gps_longitude go together',
    path: ['gps_longitude'],
  });
export type CreateCollectorBody = z.infer<typeof createCollectorBodySchema>;

/** docs/collectors.md: `grace_period_hours` (integer, default 24); a week at most. */
export const rotateKeyBodySchema = z.object({ grace_period_hours: z.number().int().min(0).max(168).default(24) }).strict();

export const revokeKeyBodySchema = z.object({ reason: z.string().trim().min(1).max(L.reason) }).strict();

/** DELETE carries no required body; a reason may still be given. */
export const deleteKeyBodySchema = z.object({ reason: z.string().trim().min(1).max(L.reason).optional() }).strict();

export const decommissionBodySchema = z.object({ reason: z.string().trim().min(1).max(L.reason).optional() }).strict();

export const updateConfigBodySchema = z.object({ config: configObject }).strict();

/** The reason recorded when `DELETE /api/v1/admin/keys/{id}` gives none. */
export const DEFAULT_DELETE_REASON = 'revoked by admin (DELETE)';
