/**
 * Retro-hunt (docs/watchlists.md "Retro-hunt"): when plates are added to a list, the reads of
 * the last N days are searched for them and each match raises a "historical hit" alert.
 * Runs inside the transaction that adds the entries, so the entries and their historical
 * alerts commit together; the unique (detection, watchlist) pair makes a rerun raise none
 * again. Matching is the live matcher's (exact, OCR-tolerant, one misread, as the list says).
 */
import { confusionKey } from '@alpr/shared/detection/ocr';
import { deletionNeighbourhood } from '@alpr/shared/detection/one-edit';
import type { DbSession } from '../db/session.ts';
import { unkeyedPlatesSql } from '../db/unkeyed-reads.ts';
import { MAX_RETRO_HUNT_DAYS, type HuntEntry, type HuntList, type RetroHunt } from '../watchlists/hunt.ts';
import { buildWatchlistIndex, matchPlate, matchRead, type IndexedEntry } from '../watchlists/match.ts';
import { loadListRules } from '../watchlists/rules-sql.ts';
import type { ReadContext } from '../watchlists/scope.ts';
import type { AlertHooks, RaisedAlert } from './hooks.ts';
import { insertAlerts, type AlertCandidate } from './raise.ts';

const DAY_MS = 86_400_000;

export async function retroHunt(
  tx: DbSession,
  list: HuntList,
  entries: readonly HuntEntry[],
  options: { days: number; now: Date; hooks?: AlertHooks | undefined },
): Promise<RaisedAlert[]> {
  const days = Math.min(Math.max(0, Math.floor(options.days)), MAX_RETRO_HUNT_DAYS);
  if (days === 0 || entries.length === 0) return [];
  const now = options.now;
  // The list's rule (docs/watchlists.md "Scopes"): an allow-list's plates are the ones that
  // must NOT alert, and an ignore list alerts nowhere, so adding to either hunts nothing; a
  // scoped list hunts only the reads in its scope, minus its ignore lists' plates.
  const [kind] = await tx.sql<{ kind: string; mode: string }>('SELECT kind, mode FROM watchlists WHERE id = $1::uuid', [list.id]);
  if (kind && (kind.kind !== 'watchlist' || kind.mode !== 'listed')) return [];
  const rule = (await loadListRules(tx, list.id)).get(list.id)?.rule;
  const indexed: IndexedEntry[] = entries.map((e) => ({
    entryId: e.id,
    watchlistId: list.id,
    watchlistName: list.name,
    priority: list.priority,
    ocrTolerant: list.ocrTolerant,
    forgiveOneMisread: list.forgiveOneMisread,
    plateNumber: e.plate,
    plateNormalized: e.key,
    notes: e.notes,
    addedBy: e.addedBy,
    addedAt: e.addedAt,
    expiresAt: e.expiresAt,
    entryPriority: e.priority,
    ...(rule ? { rule } : {}),
  }));
  const ignored =
    rule && rule.ignoreListIds.length > 0
      ? (
          await tx.sql<{ plate_normalized: string; watchlist_id: string; expires_at: Date | null }>(
            `SELECT plate_normalized, watchlist_id, expires_at FROM watchlist_entries
             WHERE watchlist_id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`,
            [JSON.stringify(rule.ignoreListIds)],
          )
        ).map((r) => ({ plateNormalized: r.plate_normalized, ignoreListId: r.watchlist_id, expiresAt: r.expires_at ? new Date(r.expires_at) : null }))
      : [];
  const index = buildWatchlistIndex(indexed, { ignored });
  const plates = new Set(entries.map((e) => e.key));
  if (list.ocrTolerant || list.forgiveOneMisread) {
    // Plates seen one confusion or one edit away, through the deletion neighbourhoods of
    // every distinct plate's confusion key (0025): an index probe per key, not a scan.
    const keys = new Set<string>();
    for (const e of entries) for (const k of deletionNeighbourhood(confusionKey(e.key))) keys.add(k);
    // Plus the plates of the hunt's reads whose keys the builder has not written yet
    // (db/unkeyed-reads.ts), in the same statement: one snapshot for the cursor and the keys.
    const near = await tx.sql<{ plate_normalized: string }>(
      `SELECT plate_normalized FROM plate_edit_keys WHERE edit_key IN (SELECT value FROM json_array_elements_text($1::json))
       UNION
       ${unkeyedPlatesSql(`u.captured_at >= $2::timestamptz AND u.captured_at <= $3::timestamptz`)}`,
      [JSON.stringify([...keys]), new Date(now.getTime() - days * DAY_MS).toISOString(), now.toISOString()],
    );
    for (const r of near) if (matchPlate(index, r.plate_normalized, now).length > 0) plates.add(r.plate_normalized);
  }
  const reads = await tx.sql<
    { id: string; plate_normalized: string } & Record<'collector_id' | 'camera_id' | 'direction', string> & { site_id: string | null; captured_at: Date }
  >(
    `SELECT d.id, d.plate_normalized, d.collector_id, d.camera_id, d.direction, d.captured_at, c.site_id FROM detections d
     LEFT JOIN collectors c ON c.id = d.collector_id
     WHERE d.plate_normalized IN (SELECT value FROM json_array_elements_text($1::json))
       AND d.captured_at >= $2::timestamptz AND d.captured_at <= $3::timestamptz`,
    [JSON.stringify([...plates]), new Date(now.getTime() - days * DAY_MS).toISOString(), now.toISOString()],
  );
  const candidates: AlertCandidate[] = [];
  for (const read of reads) {
    const context: ReadContext = {
      collectorId: read.collector_id,
      cameraId: read.camera_id,
      siteId: read.site_id,
      direction: read.direction as ReadContext['direction'],
      capturedAt: new Date(read.captured_at),
    };
    for (const match of matchRead(index, read.plate_normalized, now, context))
      candidates.push({ detectionPk: String(read.id), plate: read.plate_normalized, match });
  }
  return insertAlerts(tx, candidates, { now, historical: true, hooks: options.hooks });
}

/** The retro-hunt as watchlists ask for it (watchlists/hunt.ts), its hits heard through `hooks`. */
export function retroHuntWith(hooks: AlertHooks | undefined): RetroHunt {
  return (tx, list, entries, options) => retroHunt(tx, list, entries, { ...options, hooks });
}
