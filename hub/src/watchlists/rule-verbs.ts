/**
 * A list's rule on its create and update (docs/watchlists.md "Scopes"): the checks the schema
 * cannot make (the named sites, collectors and ignore lists exist; an ignore list has no rule
 * of its own), the ignore-list links, and the rule in words for the answer and the page.
 */
import type { DbSession } from '../db/session.ts';
import type { StoredScope, WatchlistKind, WatchlistMode } from '../db/schema/watchlists.ts';
import { HubError } from '../platform/errors.ts';
import { loadScopeNames } from './rules-sql.ts';
import { describeScope } from './scope.ts';

export interface RuleInput {
  kind?: WatchlistKind | undefined;
  mode?: WatchlistMode | undefined;
  scope?: StoredScope | null | undefined;
  ignore_lists?: string[] | undefined;
}

/** What the API adds to a list: its ignore lists and its rule in words. */
export interface RuleView {
  ignoreLists: string[];
  scopeWords: string;
}

async function missing(db: DbSession, table: 'sites' | 'collectors', ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db.sql<{ id: string }>(`SELECT id FROM ${table} WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`, [
    JSON.stringify(ids),
  ]);
  const have = new Set(found.map((r) => r.id));
  return ids.filter((id) => !have.has(id));
}

/** 400 for a rule that names what is not there or does not fit the list's kind. */
export async function checkRule(db: DbSession, listId: string | null, kind: WatchlistKind, input: RuleInput): Promise<void> {
  if (kind === 'ignore') {
    if ((input.mode ?? 'listed') !== 'listed')
      throw new HubError('bad_request', 'mode: an ignore list has no mode (its plates never alert where it is attached)');
    if (input.scope) throw new HubError('bad_request', 'scope: an ignore list has no scope; attach it to the lists it should quiet');
    if (input.ignore_lists && input.ignore_lists.length > 0)
      throw new HubError('bad_request', 'ignore_lists: an ignore list cannot itself be quieted by another');
  }
  const scope = input.scope;
  if (scope) {
    const sites = await missing(db, 'sites', scope.sites ?? []);
    if (sites.length > 0) throw new HubError('bad_request', `scope.sites: no such site ${sites[0]}`);
    const collectors = await missing(db, 'collectors', [...new Set([...(scope.collectors ?? []), ...(scope.cameras ?? []).map((c) => c.collector_id)])]);
    if (collectors.length > 0) throw new HubError('bad_request', `scope.collectors: no such collector ${collectors[0]}`);
  }
  const ignores = input.ignore_lists ?? [];
  if (ignores.length > 0) {
    if (listId && ignores.includes(listId)) throw new HubError('bad_request', 'ignore_lists: a list cannot ignore itself');
    const found = await db.sql<{ id: string }>(
      `SELECT id FROM watchlists WHERE kind = 'ignore' AND deleted_at IS NULL AND id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
      [JSON.stringify(ignores)],
    );
    const have = new Set(found.map((r) => r.id));
    const bad = ignores.find((id) => !have.has(id));
    if (bad) throw new HubError('bad_request', `ignore_lists: ${bad} is not an ignore list`);
  }
}

/** Replaces the list's ignore-list links with `ids`. */
export async function setIgnoreLinks(tx: DbSession, listId: string, ids: readonly string[]): Promise<void> {
  await tx.sql('DELETE FROM watchlist_ignore_links WHERE watchlist_id = $1::uuid', [listId]);
  if (ids.length === 0) return;
  await tx.sql(
    `INSERT INTO watchlist_ignore_links (watchlist_id, ignore_list_id)
     SELECT $1::uuid, value::uuid FROM json_array_elements_text($2::json) ON CONFLICT DO NOTHING`,
    [listId, JSON.stringify(ids)],
  );
}

/** Each list's ignore lists and its rule in words, for the answers (one query for the links). */
export async function ruleViews(
  db: DbSession,
  lists: ReadonlyArray<{ id: string; kind: WatchlistKind; mode: WatchlistMode; scope: StoredScope | null }>,
): Promise<Map<string, RuleView>> {
  const out = new Map<string, RuleView>();
  if (lists.length === 0) return out;
  const links = await db.sql<{ watchlist_id: string; ignore_list_id: string; name: string }>(
    `SELECT l.watchlist_id, l.ignore_list_id, i.name FROM watchlist_ignore_links l JOIN watchlists i ON i.id = l.ignore_list_id
     WHERE i.deleted_at IS NULL AND l.watchlist_id IN (SELECT value::uuid FROM json_array_elements_text($1::json))
     ORDER BY i.name`,
    [JSON.stringify(lists.map((l) => l.id))],
  );
  const needNames = lists.some((l) => l.scope && (l.scope.sites?.length ?? 0) + (l.scope.collectors?.length ?? 0) + (l.scope.cameras?.length ?? 0) > 0);
  const names = needNames ? await loadScopeNames(db) : { sites: new Map<string, string>(), collectors: new Map<string, string>() };
  for (const l of lists) {
    const mine = links.filter((k) => k.watchlist_id === l.id);
    const words =
      l.kind === 'ignore'
        ? 'ignore list: its plates never alert on the lists it is attached to'
        : describeScope(
            l.mode,
            l.scope,
            names,
            mine.map((k) => k.name),
          );
    out.set(l.id, { ignoreLists: mine.map((k) => k.ignore_list_id), scopeWords: words });
  }
  return out;
}
