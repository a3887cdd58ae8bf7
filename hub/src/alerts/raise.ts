/**
 * Raising alerts (docs/alerts.md "How an alert is raised"): `insertAlerts` is the only
 * statement that writes an alert row, whatever found the match. For the live path one
 * transaction per batch holds the alert rows, the items' `complete` and the NOTIFY for the
 * live channel, so a worker that dies mid-batch leaves nothing half-done; the unique
 * (detection, watchlist) constraint keeps a re-run after a lost claim from doubling an alert.
 */
import { ALERT_CHANNEL } from '../db/channels.ts';
import type { DbSession } from '../db/session.ts';
import type { AlertEntrySnapshot } from '../db/schema/alerts.ts';
import { matchRead, type PlateMatch, type WatchlistIndex } from '../watchlists/match.ts';
import type { ReadContext } from '../watchlists/scope.ts';
import { readContexts } from '../watchlists/read-context-sql.ts';
import { completeItems, type ClaimedItem } from './queue.ts';
import type { AlertHooks, RaisedAlert } from './hooks.ts';

export type { RaisedAlert } from './hooks.ts';

const MAX_NOTIFY_IDS = 500;

/**
 * One candidate alert: a read (by its detection pk and normalized plate) that matched one
 * entry of one list, with the entry as it was (the snapshot says why, if it is removed later).
 */
export interface AlertCandidate {
  detectionPk: string;
  plate: string;
  match: PlateMatch;
}

/** The entry snapshot an alert keeps: what the entry said when it matched, and how. */
function entrySnapshot(m: PlateMatch): AlertEntrySnapshot {
  const scope = m.rule ? { scope: m.rule.words } : {};
  // An allow-list's alert has no entry: the plate is not on the list; the words say why.
  if (m.kind === 'not_listed') return scope;
  return {
    ...scope,
    plate_number: m.entry.plateNumber,
    notes: m.entry.notes,
    added_by: m.entry.addedBy,
    added_at: m.entry.addedAt.toISOString(),
    ...(m.entry.entryPriority ? { priority: m.entry.entryPriority } : {}),
    ...(m.edit ? { match: { kind: m.edit.kind, position: m.edit.position, entry_char: m.edit.queryChar, read_char: m.edit.plateChar } } : {}),
  };
}

/**
 * The one way an alert comes into being (live match, retro-hunt, hand-added hunt, requeue):
 * insert the rows, run the in-transaction hooks (the bot and webhooks queue their
 * deliveries), and notify the live channel, all in the caller's transaction. The unique
 * (detection, watchlist) pair keeps a rerun, or a historical hit for a read that already
 * alerted, from raising a second. A list switched off since the match raises nothing; an
 * entry removed since keeps its alert without the link. `historical`: a past read found by a
 * retro-hunt, which also checks the read still exists (retention may have removed it since
 * the hunt looked).
 */
export async function insertAlerts(
  tx: DbSession,
  candidates: readonly AlertCandidate[],
  options: { now: Date; historical: boolean; hooks?: AlertHooks | undefined },
): Promise<RaisedAlert[]> {
  if (candidates.length === 0) return [];
  const rows = candidates.map((c) => ({
    detection_id: c.detectionPk,
    watchlist_id: c.match.entry.watchlistId,
    entry_id: c.match.kind === 'not_listed' ? null : c.match.entry.entryId,
    match_kind: c.match.kind,
    entry: entrySnapshot(c.match),
  }));
  const stillStored = options.historical ? 'JOIN detection_keys k ON k.detection_pk = v.detection_id' : '';
  const inserted = await tx.sql<{ id: string; detection_id: string; watchlist_id: string }>(
    `INSERT INTO alerts (detection_id, watchlist_id, watchlist_entry_id, match_kind, entry_snapshot, created_at, historical)
     SELECT v.detection_id, v.watchlist_id, e.id, v.match_kind, v.entry, $2::timestamptz, $3::boolean
     FROM json_to_recordset($1::json) AS v (detection_id bigint, watchlist_id uuid, entry_id uuid, match_kind text, entry jsonb)
     JOIN watchlists w ON w.id = v.watchlist_id AND w.is_active AND w.deleted_at IS NULL
     ${stillStored}
     LEFT JOIN watchlist_entries e ON e.id = v.entry_id
     ORDER BY v.detection_id, v.watchlist_id
     ON CONFLICT (detection_id, watchlist_id) DO NOTHING
     RETURNING id, detection_id, watchlist_id`,
    [JSON.stringify(rows), options.now.toISOString(), options.historical],
    { prepare: true },
  );
  const plates = new Map(candidates.map((c) => [c.detectionPk, c.plate]));
  const raised: RaisedAlert[] = inserted.map((r) => ({
    id: String(r.id),
    detectionPk: String(r.detection_id),
    watchlistId: r.watchlist_id,
    plate: plates.get(String(r.detection_id)) ?? '',
  }));
  if (raised.length === 0) return raised;
  await options.hooks?.raisedInTransaction(tx, raised, options.now);
  for (let i = 0; i < raised.length; i += MAX_NOTIFY_IDS) {
    const ids = raised.slice(i, i + MAX_NOTIFY_IDS).map((a) => a.id);
    await tx.sql(`SELECT pg_notify('${ALERT_CHANNEL}', $1::text)`, [JSON.stringify({ ids })]);
  }
  return raised;
}

/**
 * Matches a claimed batch of the alert queue and raises its alerts (the live path, and a
 * requeued item's second run): the items leave the queue in the transaction that raises the alerts.
 */
export async function raiseAlerts(tx: DbSession, items: readonly ClaimedItem[], index: WatchlistIndex, now: Date, hooks?: AlertHooks): Promise<RaisedAlert[]> {
  const plates = await platesOf(tx, items);
  // Where, which way and when each read was: needed only when some list has a rule, and
  // carried on the item since 0044, so only an item queued by an older hub is looked up
  // (docs/watchlists.md "Scopes").
  const reads = index.hasRules ? await contextsOf(tx, items) : undefined;
  const candidates: AlertCandidate[] = [];
  for (const [pk, plate] of plates) for (const match of matchRead(index, plate, now, reads?.get(pk))) candidates.push({ detectionPk: pk, plate, match });
  const raised = await insertAlerts(tx, candidates, { now, historical: false, hooks });
  await completeItems(
    tx,
    items.map((i) => i.id),
  );
  return raised;
}

/** Each item's read context by detection pk: from the item, or looked up for items without one. */
async function contextsOf(tx: DbSession, items: readonly ClaimedItem[]): Promise<Map<string, ReadContext>> {
  const out = new Map<string, ReadContext>();
  const missing: string[] = [];
  for (const item of items) {
    if (item.read) out.set(item.detectionPk, item.read);
    else missing.push(item.detectionPk);
  }
  if (missing.length > 0) for (const [pk, read] of await readContexts(tx, missing)) out.set(pk, read);
  return out;
}

/**
 * Each item's normalized plate by detection pk. Items carry the plate since migration 0021;
 * one queued by an older hub is looked up in detections (a probe per item across the
 * partitions, which is why the plate now travels with the item).
 */
async function platesOf(tx: DbSession, items: readonly ClaimedItem[]): Promise<Map<string, string>> {
  const plates = new Map<string, string>();
  const missing = new Set<string>();
  for (const item of items) {
    if (item.plateNormalized === null) missing.add(item.detectionPk);
    else plates.set(item.detectionPk, item.plateNormalized);
  }
  if (missing.size > 0) {
    const found = await tx.sql<{ pk: string; plate_normalized: string }>(
      `SELECT k.detection_pk AS pk, d.plate_normalized
       FROM detection_keys k JOIN detections d ON d.id = k.detection_pk AND d.captured_at = k.captured_at
       WHERE k.detection_pk IN (SELECT value::bigint FROM json_array_elements_text($1::json))`,
      [JSON.stringify([...missing])],
      { prepare: true },
    );
    for (const d of found) plates.set(String(d.pk), d.plate_normalized);
  }
  return plates;
}
