/**
 * Matching a claimed batch and raising its alerts (docs/alerts.md): one transaction per
 * batch holds the alert rows, the items' `complete` and the NOTIFY for the live channel,
 * so a worker that dies mid-batch leaves nothing half-done; the unique (detection,
 * watchlist) constraint keeps a re-run after a lost claim from doubling an alert.
 */
import { ALERT_CHANNEL } from '../db/channels.ts';
import type { DbSession } from '../db/session.ts';
import type { AlertEntrySnapshot } from '../db/schema/alerts.ts';
import { matchPlate, type WatchlistIndex } from '../watchlists/match.ts';
import { completeItems, type ClaimedItem } from './queue.ts';
import type { AlertHooks, RaisedAlert } from './hooks.ts';

export type { RaisedAlert } from './hooks.ts';

const MAX_NOTIFY_IDS = 500;

/**
 * `hooks`: what other domains do with the new alerts in the same transaction (hooks.ts; the
 * messaging bot queues its deliveries when a bot is configured).
 */
export async function raiseAlerts(tx: DbSession, items: readonly ClaimedItem[], index: WatchlistIndex, now: Date, hooks?: AlertHooks): Promise<RaisedAlert[]> {
  const plates = await platesOf(tx, items);
  const rows: { detection_id: string; watchlist_id: string; entry_id: string; match_kind: string; entry: AlertEntrySnapshot }[] = [];
  for (const [pk, plate] of plates) {
    for (const m of matchPlate(index, plate, now)) {
      rows.push({
        detection_id: pk,
        watchlist_id: m.entry.watchlistId,
        entry_id: m.entry.entryId,
        match_kind: m.kind,
        entry: {
          plate_number: m.entry.plateNumber,
          notes: m.entry.notes,
          added_by: m.entry.addedBy,
          added_at: m.entry.addedAt.toISOString(),
          ...(m.entry.entryPriority ? { priority: m.entry.entryPriority } : {}),
          ...(m.edit ? { match: { kind: m.edit.kind, position: m.edit.position, entry_char: m.edit.queryChar, read_char: m.edit.plateChar } } : {}),
        },
      });
    }
  }
  let raised: RaisedAlert[] = [];
  if (rows.length > 0) {
    // The cache may be a moment behind: a watchlist switched off since matches nothing; an
    // entry removed since keeps its alert (the snapshot says why) without the link.
    const inserted = await tx.sql<{ id: string; detection_id: string; watchlist_id: string }>(
      `INSERT INTO alerts (detection_id, watchlist_id, watchlist_entry_id, match_kind, entry_snapshot, created_at)
       SELECT v.detection_id, v.watchlist_id, e.id, v.match_kind, v.entry, $2::timestamptz
       FROM json_to_recordset($1::json) AS v (detection_id bigint, watchlist_id uuid, entry_id uuid, match_kind text, entry jsonb)
       JOIN watchlists w ON w.id = v.watchlist_id AND w.is_active AND w.deleted_at IS NULL
       LEFT JOIN watchlist_entries e ON e.id = v.entry_id
       ORDER BY v.detection_id, v.watchlist_id
       ON CONFLICT (detection_id, watchlist_id) DO NOTHING
       RETURNING id, detection_id, watchlist_id`,
      [JSON.stringify(rows), now.toISOString()],
      { prepare: true },
    );
    raised = inserted.map((r) => ({
      id: String(r.id),
      detectionPk: String(r.detection_id),
      watchlistId: r.watchlist_id,
      plate: plates.get(String(r.detection_id)) ?? '',
    }));
    await hooks?.raisedInTransaction(tx, raised, now);
  }
  await completeItems(
    tx,
    items.map((i) => i.id),
    now,
  );
  for (let i = 0; i < raised.length; i += MAX_NOTIFY_IDS) {
    const ids = raised.slice(i, i + MAX_NOTIFY_IDS).map((a) => a.id);
    await tx.sql(`SELECT pg_notify('${ALERT_CHANNEL}', $1::text)`, [JSON.stringify({ ids })]);
  }
  return raised;
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
