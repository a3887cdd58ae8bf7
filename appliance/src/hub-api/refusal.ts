import { z } from 'zod';
import { COLLECTOR_REFUSAL_REASONS, type CollectorRefusalReason } from '@alpr/shared/protocol/collector';

/**
 * `error.reason` of a refused call (upload, heartbeat, ack), read leniently: a body that is
 * not JSON, has no reason or names one this appliance does not know gives undefined, so the
 * caller falls back to what the status alone says (an older hub sends no reason at all).
 */
const refusalBodySchema = z.object({
  error: z
    .object({ reason: z.enum(COLLECTOR_REFUSAL_REASONS).optional().catch(undefined) })
    .optional()
    .catch(undefined),
});

export function collectorRefusalOf(bodyText: string): CollectorRefusalReason | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  const parsed = refusalBodySchema.safeParse(json);
  return parsed.success ? parsed.data.error?.reason : undefined;
}
