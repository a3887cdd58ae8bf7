import { z } from 'zod';

/**
 * Inputs of the admin verbs, validated at the boundary (CLI today, admin HTTP routes
 * later) with the same schemas. Field limits follow docs/collectors.md.
 */
export const collectorConfigSchema = z.record(z.string(), z.unknown());

export const createCollectorInputSchema = z.object({
  siteName: z.string().trim().min(1).max(100),
  siteAddress: z.string().trim().max(255).optional(),
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
  reason: z.string().trim().min(1).max(500),
});
export type RevokeKeyInput = z.infer<typeof revokeKeyInputSchema>;
