/**
 * The lists' rules as the matcher holds them (docs/watchlists.md "Scopes"): only lists that
 * narrow anything (a scope, allow-list mode, an ignore list attached) get a rule; the others
 * are matched exactly as before. Read by the cache (every active list) and by the retro-hunt
 * (one list).
 */
import type { DbSession } from '../db/session.ts';
import type { StoredScope, WatchlistMode, WatchlistPriority } from '../db/schema/watchlists.ts';
import { compileScope, describeScope, type ListRule, type ScopeNames } from './scope.ts';

export interface RuledList {
  rule: ListRule;
  name: string;
  priority: WatchlistPriority;
}

/** Names of every site and collector, for the words (a few hundred rows at most). */
export async function loadScopeNames(db: DbSession): Promise<ScopeNames> {
  const sites = await db.sql<{ id: string; name: string }>('SELECT id, name FROM sites');
  const collectors = await db.sql<{ id: string; name: string }>('SELECT id, site_name AS name FROM collectors');
  return { sites: new Map(sites.map((r) => [r.id, r.name])), collectors: new Map(collectors.map((r) => [r.id, r.name])) };
}

/** Rules of the active ordinary lists that have one; `onlyList` narrows to one list. */
export async function loadListRules(db: DbSession, onlyList?: string): Promise<Map<string, RuledList>> {
  const rows = await db.sql<{
    id: string;
    name: string;
    priority: WatchlistPriority;
    mode: WatchlistMode;
    scope: StoredScope | null;
    ignores: Array<{ id: string; name: string }> | null;
  }>(
    `SELECT w.id, w.name, w.priority, w.mode, w.scope,
            (SELECT json_agg(json_build_object('id', i.id, 'name', i.name) ORDER BY i.name)
             FROM watchlist_ignore_links l JOIN watchlists i ON i.id = l.ignore_list_id
             WHERE l.watchlist_id = w.id AND i.deleted_at IS NULL) AS ignores
     FROM watchlists w
     WHERE w.is_active AND w.deleted_at IS NULL AND w.kind = 'watchlist'
       AND (w.mode <> 'listed' OR w.scope IS NOT NULL OR EXISTS (SELECT 1 FROM watchlist_ignore_links l WHERE l.watchlist_id = w.id))
       AND ($1::uuid IS NULL OR w.id = $1::uuid)`,
    [onlyList ?? null],
  );
  const out = new Map<string, RuledList>();
  if (rows.length === 0) return out;
  const names = await loadScopeNames(db);
  for (const r of rows) {
    const scope = compileScope(r.scope);
    const ignores = r.ignores ?? [];
    if (!scope && r.mode === 'listed' && ignores.length === 0) continue;
    const rule: ListRule = {
      watchlistId: r.id,
      mode: r.mode,
      scope,
      ignoreListIds: ignores.map((i) => i.id),
      words: describeScope(
        r.mode,
        r.scope,
        names,
        ignores.map((i) => i.name),
      ),
    };
    out.set(r.id, { rule, name: r.name, priority: r.priority });
  }
  return out;
}
