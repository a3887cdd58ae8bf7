/**
 * A target's filter (docs/webhooks.md "Filters"), pure: every field given must match, an
 * empty filter matches everything; `site_ids` keeps a target to the reads of some sites. The plate pattern is a glob over the plate as the
 * watchlists compare it (OCR-normalized on both sides: O and 0, I and 1 are one; `*` any run,
 * `?` one character), not a regular expression: an admin's typo cannot make
 * the alert worker's transaction backtrack for seconds.
 */
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { z } from 'zod';
import { anyUuid } from '../platform/any-uuid.ts';

export const webhookFilterSchema = z
  .object({
    plate_pattern: z
      .string()
      .min(1)
      .max(40)
      .regex(/^[A-Za-z0-9*?]+$/, 'letters, digits, * and ?')
      .optional(),
    collector_id: z.string().uuid().optional(),
    camera_id: z.string().min(1).max(200).optional(),
    watchlist_id: z.string().uuid().optional(),
    // The sites whose reads, alerts and health the target hears (a collector belongs to one
    // site). Bounded: the list is checked against every event the target is offered.
    site_ids: z
      .array(anyUuid('must be a site id (uuid)'))
      .min(1)
      .max(200)
      .refine((ids) => new Set(ids).size === ids.length, 'each site once')
      .optional(),
  })
  .strict();
export type WebhookFilter = z.infer<typeof webhookFilterSchema>;

export interface FilterSubject {
  plate: string;
  collectorId: string;
  cameraId: string;
  watchlistId?: string;
  /** The collector's site; undefined when it is not known (a collector removed since). */
  siteId?: string;
}

/** `plate`: OCR-normalized already (detections.plate_normalized). */
export function globMatches(pattern: string, plate: string): boolean {
  // Only letters and digits reach here (the schema), so the pieces need no escaping.
  const source = pattern
    .split(/([*?])/)
    .map((piece) => (piece === '*' ? '.*' : piece === '?' ? '.' : ocrNormalize(piece)))
    .join('');
  return new RegExp(`^${source}$`).test(plate);
}

export function filterMatches(filter: WebhookFilter, subject: FilterSubject): boolean {
  if (filter.plate_pattern !== undefined && !globMatches(filter.plate_pattern, subject.plate)) return false;
  if (filter.collector_id !== undefined && filter.collector_id !== subject.collectorId) return false;
  if (filter.camera_id !== undefined && filter.camera_id !== subject.cameraId) return false;
  if (filter.watchlist_id !== undefined && filter.watchlist_id !== subject.watchlistId) return false;
  if (!siteMatches(filter, subject.siteId)) return false;
  return true;
}

/** A target filtered by sites hears a subject of one of them; one of no known site, never. */
export function siteMatches(filter: WebhookFilter, siteId: string | undefined): boolean {
  return filter.site_ids === undefined || (siteId !== undefined && filter.site_ids.includes(siteId));
}

/** Whether any of these filters names sites: only then are the collectors' sites looked up. */
export function anyFilterNamesSites(filters: readonly (WebhookFilter | null)[]): boolean {
  return filters.some((f) => f?.site_ids !== undefined);
}
