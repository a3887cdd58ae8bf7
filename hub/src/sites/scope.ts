/**
 * The one way a signed-in user becomes a site scope (docs/sites.md "Scope"): every read path
 * asks this, per request, and filters by the collector ids it answers. Nothing is cached past
 * the request, so an admin's change to a user's sites holds from the next request (and from
 * the next live delivery, hub/src/live/broker.ts).
 */
import type { DbSession } from '../db/session.ts';

/** `all`: every site, no filter at all. Otherwise the collectors of the user's sites (maybe none). */
export type SiteScope = { readonly all: true } | { readonly all: false; readonly siteIds: readonly string[]; readonly collectorIds: readonly string[] };

export const ALL_SITES: SiteScope = { all: true };

/** Who is asking: the session's user id and role are all the scope depends on. */
export interface ScopeSubject {
  id: string;
  role: string;
}

/**
 * Admins see every site (they manage the sites themselves: a scoped admin could lift their
 * own scope). Everyone else: `users.all_sites`, or the sites named directly and through their
 * groups. One round trip; an unknown user gets an empty scope, never `all`.
 */
export async function siteScopeOf(db: DbSession, subject: ScopeSubject): Promise<SiteScope> {
  if (subject.role === 'admin') return ALL_SITES;
  return (await siteScopesOf(db, [subject.id])).get(subject.id) ?? { all: false, siteIds: [], collectorIds: [] };
}

/** Several users at once (the live channel's listeners of one delivery). */
export async function siteScopesOf(db: DbSession, userIds: readonly string[]): Promise<Map<string, SiteScope>> {
  const out = new Map<string, SiteScope>();
  if (userIds.length === 0) return out;
  const rows = await db.sql<{ id: string; role: string; all_sites: boolean; site_ids: string | null; collector_ids: string | null }>(
    `WITH asked AS (SELECT value::uuid AS id FROM json_array_elements_text($1::json)),
     mine AS (
       SELECT us.user_id, us.site_id FROM user_sites us WHERE us.user_id IN (SELECT id FROM asked) AND us.site_id IS NOT NULL
       UNION
       SELECT us.user_id, m.site_id FROM user_sites us JOIN site_group_members m ON m.group_id = us.group_id WHERE us.user_id IN (SELECT id FROM asked)
     )
     SELECT u.id::text AS id, u.role, u.all_sites,
       (SELECT json_agg(mine.site_id::text ORDER BY mine.site_id)::text FROM mine WHERE mine.user_id = u.id) AS site_ids,
       (SELECT json_agg(c.id::text ORDER BY c.id)::text FROM collectors c JOIN mine ON mine.site_id = c.site_id WHERE mine.user_id = u.id) AS collector_ids
     FROM users u WHERE u.id IN (SELECT id FROM asked)`,
    [JSON.stringify(userIds)],
  );
  for (const r of rows) {
    if (r.role === 'admin' || r.all_sites) out.set(r.id, ALL_SITES);
    else out.set(r.id, { all: false, siteIds: parseIds(r.site_ids), collectorIds: parseIds(r.collector_ids) });
  }
  return out;
}

const parseIds = (text: string | null): string[] => (text ? (JSON.parse(text) as string[]) : []);

/** Whether a collector's reads are inside the scope. */
export function scopeAllows(scope: SiteScope, collectorId: string): boolean {
  return scope.all || scope.collectorIds.includes(collectorId);
}

/**
 * The collectors a read may filter on: what the request asked for (none: any), cut to the
 * scope. `undefined`: no filter (all sites, nothing asked). `[]`: nothing can match, so the
 * read answers empty without touching detections.
 */
export function scopedCollectorIds(scope: SiteScope, asked: readonly string[]): readonly string[] | undefined {
  if (scope.all) return asked.length > 0 ? asked : undefined;
  if (asked.length === 0) return scope.collectorIds;
  const allowed = new Set(scope.collectorIds);
  return asked.filter((id) => allowed.has(id));
}

/** How the audit log records the scope in force at a lookup. */
export function scopeRecord(scope: SiteScope): { all: true } | { all: false; site_ids: readonly string[] } {
  return scope.all ? { all: true } : { all: false, site_ids: scope.siteIds };
}

/**
 * A SQL condition keeping `column` (a collector id) inside the scope, with its parameter
 * added through `p`; `undefined` for all sites, so those reads run exactly as before.
 */
export function scopeCondition(scope: SiteScope, column: string, p: (value: unknown) => string): string | undefined {
  if (scope.all) return undefined;
  if (scope.collectorIds.length === 0) return 'FALSE';
  return `${column} = ANY (ARRAY(SELECT value::uuid FROM json_array_elements_text(${p(JSON.stringify(scope.collectorIds))}::json)))`;
}

/**
 * A SQL predicate: the user `userAlias` (a `users` row) may see reads of the collector
 * `collectorExpr`. For statements that fan one read out to many users at once (the bot's
 * deliveries): admins and all-sites users pass on their own row, the others through their
 * sites and groups. Constants only, no parameters.
 */
export function userSeesCollectorSql(userAlias: string, collectorExpr: string): string {
  return `(${userAlias}.role = 'admin' OR ${userAlias}.all_sites OR EXISTS (
    SELECT 1 FROM collectors sc
    JOIN user_sites us ON us.user_id = ${userAlias}.id
    LEFT JOIN site_group_members sgm ON sgm.group_id = us.group_id
    WHERE sc.id = ${collectorExpr} AND sc.site_id = COALESCE(us.site_id, sgm.site_id)))`;
}
