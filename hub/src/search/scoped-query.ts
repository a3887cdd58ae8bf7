import type { SearchQuery } from './params.ts';
import { scopedCollectorIds, type SiteScope } from '../sites/scope.ts';

/**
 * A search cut to the user's sites (docs/sites.md): the collectors asked for (none: all of
 * theirs) that are inside the scope. `undefined`: nothing can match, and the caller answers
 * as for a search that matches nothing. All sites: the query unchanged, so it costs nothing.
 * The cut is a `collector_id` set, which every search path already serves from its indexes.
 */
export function scopedQuery(scope: SiteScope, q: SearchQuery): SearchQuery | undefined {
  if (scope.all) return q;
  const collectorIds = scopedCollectorIds(scope, q.collectorIds) ?? [];
  return collectorIds.length === 0 ? undefined : { ...q, collectorIds: [...collectorIds] };
}
