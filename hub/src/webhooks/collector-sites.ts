/**
 * The site each collector belongs to, for targets filtered by `site_ids` (filter.ts). Read in
 * the queueing transaction, once per page of events and only when some target names sites, so
 * a collector moved to another site is heard under its new site from the next event on.
 */
import type { StatementSession } from '../db/session.ts';
import { anyFilterNamesSites, type WebhookFilter } from './filter.ts';

export type CollectorSites = ReadonlyMap<string, string>;

const NONE: CollectorSites = new Map();

export async function collectorSites(
  tx: StatementSession,
  filters: readonly (WebhookFilter | null)[],
  collectorIds: Iterable<string | null>,
): Promise<CollectorSites> {
  if (!anyFilterNamesSites(filters)) return NONE;
  const ids = [...new Set([...collectorIds].filter((id): id is string => id !== null))];
  if (ids.length === 0) return NONE;
  const rows = await tx.sql<{ id: string; site_id: string }>(
    `SELECT id::text AS id, site_id::text AS site_id FROM collectors WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, r.site_id]));
}
