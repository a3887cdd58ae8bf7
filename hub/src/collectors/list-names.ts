/**
 * Every collector's id and site name, decommissioned ones too (their detections stay
 * searchable); for a user with a site scope only the collectors of their sites
 * (docs/sites.md), so the search form names no place they cannot read.
 */
import type { DbSession } from '../db/session.ts';
import { ALL_SITES, scopeCondition, type SiteScope } from '../sites/scope.ts';

export async function listCollectorNames(db: DbSession, scope: SiteScope = ALL_SITES): Promise<{ id: string; name: string }[]> {
  const params: unknown[] = [];
  const inScope = scopeCondition(scope, 'id', (v) => `$${params.push(v)}`);
  return db.sql<{ id: string; name: string }>(
    `SELECT id, site_name AS name FROM collectors${inScope ? ` WHERE ${inScope}` : ''} ORDER BY site_name, id`,
    params,
  );
}
