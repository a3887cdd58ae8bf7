import { z } from 'zod';

/**
 * Inputs of the admin verbs, validated at the boundary (CLI today, admin HTTP routes
 * later) with the same schemas. Field limits follow docs/collectors.md.
 */
/**
 * The collectors' field lengths, written once: the columns' sizes (db/schema/collectors.ts),
 * the verbs' and the admin API's schemas, and the dashboard form's `maxlength` all use them,
 * so the form never offers what the server refuses.
 */
export const COLLECTOR_FIELD_LIMITS = { siteName: 100, siteAddress: 255, reason: 500 } as const;
const L = COLLECTOR_FIELD_LIMITS;

export const collectorConfigSchema = z.record(z.string(), z.unknown());

export const createCollectorInputSchema = z.object({
  siteName: z.string().trim().min(1).max(L.siteName),
  siteAddress: z.string().trim().max(L.siteAddress).optional(),
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  /** Initial configuration handed over at claim (config_version 1). */
  config: collectorConfigSchema.optional(),
});
export type CreateCollectorInput = z.infer<typeof createCollectorInputSchema>;

export const rotateKeyInputSchema = z.object({
  collectorId: z.string(),
  /** docs/collectors.md: `grace_period_hours`, default 24. A week at most. */
  gracePeriodHours: z.number().int().min(0).max(168).default(24),
});
export type RotateKeyInput = z.input<typeof rotateKeyInputSchema>;

export const revokeKeyInputSchema = z.object({
  keyId: z.string(),
  reason: z.string().trim().min(1).max(L.reason),
});
export type RevokeKeyInput = z.infer<typeof revokeKeyInputSchema>;
