/**
 * Which watchlist entries a detection's plate hits (docs/watchlists.md "Matching"). Pure:
 * the cache (cache.ts) builds the index from the database, the alert worker asks it.
 */
import { confusionKey } from '@alpr/shared/detection/ocr';
import type { WatchlistPriority } from '../db/schema/watchlists.ts';
import { deletionNeighbourhood, oneEdit, type Edit } from '@alpr/shared/detection/one-edit';
import { readInScope, type ListRule, type ReadContext } from './scope.ts';

export interface IndexedEntry {
  entryId: string;
  watchlistId: string;
  watchlistName: string;
  priority: WatchlistPriority;
  ocrTolerant: boolean;
  /** Forgive one misread (0025): a read one substitution, insertion or deletion away matches. */
  forgiveOneMisread: boolean;
  /** As typed (normalized plate text) and as matched (`plate_normalized`). */
  plateNumber: string;
  plateNormalized: string;
  notes: string | null;
  addedBy: string | null;
  addedAt: Date;
  /** From then on the entry matches nothing (0031); absent or null: never. */
  expiresAt?: Date | null;
  /** The entry's own priority (0031); null: the list's. */
  entryPriority?: WatchlistPriority | null;
  /** The list's rule (scope, allow-list, ignore lists; 0041), shared by its entries; absent: none. */
  rule?: ListRule;
}

/** `not_listed`: an allow-list's alert for a plate it does not hold (no entry). */
export type MatchKind = 'exact' | 'ocr' | 'one_edit' | 'not_listed';

export interface PlateMatch {
  entry: IndexedEntry;
  kind: MatchKind;
  /** `one_edit` only: from the entry to the read (`queryChar` the entry's, `plateChar` the read's). */
  edit?: Edit;
  /** The rule the read was matched under, when the list has one: its words go on the alert. */
  rule?: ListRule;
}

/** Preference when one watchlist matches several ways: the closest reading wins. */
const KIND_ORDER: Record<MatchKind, number> = { exact: 0, ocr: 1, one_edit: 2, not_listed: 3 };

export interface WatchlistIndex {
  /** plate_normalized -> entries of active watchlists. */
  readonly exact: ReadonlyMap<string, readonly IndexedEntry[]>;
  /** confusionKey -> entries of active OCR-tolerant watchlists. */
  readonly tolerant: ReadonlyMap<string, readonly IndexedEntry[]>;
  /**
   * Deletion neighbourhood (shared/src/detection/one-edit.ts) of each plate_normalized -> entries of active
   * watchlists that forgive one misread: an 8-character entry adds 9 keys.
   */
  readonly oneEdit: ReadonlyMap<string, readonly IndexedEntry[]>;
  readonly size: number;
  /**
   * Some active list has a rule (a scope, allow-list mode or an ignore list attached): the
   * matcher then needs each read's place, direction and time. False on a hub without any, so
   * such a hub pays nothing for scopes (docs/watchlists.md "Scopes").
   */
  readonly hasRules: boolean;
  /** Allow-lists: each alerts on a read in its scope whose plate it does not hold. */
  readonly allowLists: readonly IndexedEntry[];
  /** plate_normalized -> the ignore lists holding it (with each entry's expiry). */
  readonly ignored: ReadonlyMap<string, readonly IgnoredPlate[]>;
}

export interface IgnoredPlate {
  ignoreListId: string;
  expiresAt: Date | null;
}

/** What the cache adds to the entries: the allow-lists (one head entry each) and the ignore lists' plates. */
export interface IndexRules {
  allowLists?: readonly IndexedEntry[];
  ignored?: ReadonlyArray<{ plateNormalized: string } & IgnoredPlate>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function buildWatchlistIndex(entries: readonly IndexedEntry[], rules: IndexRules = {}): WatchlistIndex {
  const exact = new Map<string, IndexedEntry[]>();
  const tolerant = new Map<string, IndexedEntry[]>();
  const forgiving = new Map<string, IndexedEntry[]>();
  for (const entry of entries) {
    push(exact, entry.plateNormalized, entry);
    if (entry.ocrTolerant) push(tolerant, confusionKey(entry.plateNormalized), entry);
    if (entry.forgiveOneMisread) for (const key of deletionNeighbourhood(entry.plateNormalized)) push(forgiving, key, entry);
  }
  const ignored = new Map<string, IgnoredPlate[]>();
  for (const i of rules.ignored ?? []) push(ignored, i.plateNormalized, { ignoreListId: i.ignoreListId, expiresAt: i.expiresAt });
  const allowLists = rules.allowLists ?? [];
  const hasRules = allowLists.length > 0 || entries.some((e) => e.rule !== undefined);
  return { exact, tolerant, oneEdit: forgiving, size: entries.length, hasRules, allowLists, ignored };
}

/**
 * OCR tolerance: the same length and at most one position that differs, where both
 * characters sit in one confusion group (`8`/`B`, `2`/`Z`, `6`/`G`, `1`/`7`; O/Q/D/0, I/L/1
 * and S/5 are already equal after normalization). Two differences is a different car more
 * often than a double misread, so it is not a hit.
 */
export function withinOneConfusion(a: string, b: string): boolean {
  if (a.length !== b.length || confusionKey(a) !== confusionKey(b)) return false;
  let differing = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differing++;
  return differing <= 1;
}

/**
 * One match per watchlist at most (an alert is unique per detection and watchlist): exact
 * wins over OCR-tolerant, which wins over one misread; among equals the earliest added (a
 * stable choice). With `now`, entries expired by then are left out.
 */
export function matchPlate(index: WatchlistIndex, plateNormalized: string, now?: Date): PlateMatch[] {
  const best = new Map<string, PlateMatch>();
  const offer = (candidate: PlateMatch): void => {
    // An expired entry matches nothing; checked here, not when the cache loads, so the
    // entry stops at its expiry and not up to one cache period (60 s) later.
    const expiresAt = candidate.entry.expiresAt;
    if (now && expiresAt && expiresAt.getTime() <= now.getTime()) return;
    const current = best.get(candidate.entry.watchlistId);
    const better =
      !current ||
      KIND_ORDER[candidate.kind] < KIND_ORDER[current.kind] ||
      (candidate.kind === current.kind && candidate.entry.addedAt.getTime() < current.entry.addedAt.getTime());
    if (better) best.set(candidate.entry.watchlistId, candidate);
  };
  for (const entry of index.exact.get(plateNormalized) ?? []) offer({ entry, kind: 'exact' });
  for (const entry of index.tolerant.get(confusionKey(plateNormalized)) ?? []) {
    if (entry.plateNormalized !== plateNormalized && withinOneConfusion(entry.plateNormalized, plateNormalized)) offer({ entry, kind: 'ocr' });
  }
  if (index.oneEdit.size > 0) {
    // Forgive one misread: exactly one edit on plate_normalized, any character. Entries
    // sharing a deletion key may be two edits away (a transposition): `oneEdit` decides.
    const seen = new Set<IndexedEntry>();
    for (const key of deletionNeighbourhood(plateNormalized)) {
      for (const entry of index.oneEdit.get(key) ?? []) {
        if (seen.has(entry)) continue;
        seen.add(entry);
        const edit = oneEdit(entry.plateNormalized, plateNormalized);
        if (edit) offer({ entry, kind: 'one_edit', edit });
      }
    }
  }
  return [...best.values()].sort((x, y) => x.entry.watchlistId.localeCompare(y.entry.watchlistId));
}

function ignoredBy(index: WatchlistIndex, rule: ListRule, plateNormalized: string, now: Date | undefined): boolean {
  if (rule.ignoreListIds.length === 0) return false;
  for (const i of index.ignored.get(plateNormalized) ?? []) {
    if (now && i.expiresAt && i.expiresAt.getTime() <= now.getTime()) continue;
    if (rule.ignoreListIds.includes(i.ignoreListId)) return true;
  }
  return false;
}

/**
 * The matches of one read, its lists' rules applied (docs/watchlists.md "Scopes"): a scoped
 * list matches only a read in its scope; a plate on an attached ignore list matches nothing
 * there; an allow-list alerts on a read in its scope whose plate it does NOT hold (its own
 * matching decides "holds": exact, and OCR-tolerant or one misread when the list uses them).
 * Without rules (`hasRules` false) this is `matchPlate` and nothing more.
 */
export function matchRead(index: WatchlistIndex, plateNormalized: string, now: Date | undefined, read: ReadContext | undefined): PlateMatch[] {
  const found = matchPlate(index, plateNormalized, now);
  if (!index.hasRules) return found;
  const out: PlateMatch[] = [];
  let members: Set<string> | undefined;
  for (const m of found) {
    const rule = m.entry.rule;
    if (!rule) {
      out.push(m);
      continue;
    }
    if (rule.mode === 'allow_list') {
      (members ??= new Set()).add(rule.watchlistId);
      continue;
    }
    if (rule.scope && !readInScope(rule.scope, read)) continue;
    if (ignoredBy(index, rule, plateNormalized, now)) continue;
    out.push({ ...m, rule });
  }
  for (const head of index.allowLists) {
    const rule = head.rule;
    if (!rule || members?.has(rule.watchlistId)) continue;
    if (rule.scope && !readInScope(rule.scope, read)) continue;
    if (ignoredBy(index, rule, plateNormalized, now)) continue;
    out.push({ entry: head, kind: 'not_listed', rule });
  }
  return out.sort((x, y) => x.entry.watchlistId.localeCompare(y.entry.watchlistId));
}
