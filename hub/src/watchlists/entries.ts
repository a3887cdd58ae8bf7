/**
 * Watchlist entries: one at a time, bulk CSV import and export (docs/watchlists.md).
 * Every change commits with its audit row and the cache NOTIFY.
 */
import { and, asc, eq, gt } from 'drizzle-orm';
import { watchlistEntries } from '../db/schema/watchlist-entries.ts';
import { z } from 'zod';
import { watchlistModes, watchlists, type StoredScope, type WatchlistMode, type WatchlistPriority } from '../db/schema/watchlists.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import { HubError } from '../platform/errors.ts';
import type { WatchlistActor, WatchlistContext } from './context.ts';
import { parseWatchlistCsv, type CsvLineError } from './csv.ts';
import { huntHandAdded, type HandAddedHunt, type RetroHuntReport } from './hand-added-hunt.ts';
import { notifyWatchlistChanged } from './notify.ts';
import { watchedPlate } from './plate.ts';
import { audit, findWatchlist } from './watchlists.ts';
import { checkRule } from './rule-verbs.ts';
import { scopeSchema } from './scope-schema.ts';
import { importRecipients, recipientsBody, type DroppedRecipients, type RecipientsActor } from './recipients.ts';
import type { RecipientsBody } from './recipients-schema.ts';

export type EntryRow = typeof watchlistEntries.$inferSelect;

/**
 * Add one plate. With `hunt` (the API and page do), the list's last `retro_hunt_days` of
 * reads are searched for it in the same transaction and the answer says how many historical
 * hits that raised; without, nothing is searched (tests that seed lists, the feed's own path).
 */
export async function addEntry(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  watchlistId: string,
  input: { plate: string; notes?: string | null | undefined; expires_at?: string | null | undefined; priority?: WatchlistPriority | null | undefined },
  hunt?: HandAddedHunt,
): Promise<EntryRow & { retroHunt?: RetroHuntReport }> {
  const parsed = watchedPlate(input.plate);
  if ('error' in parsed) throw new HubError('bad_request', `plate: ${parsed.error}`);
  return ctx.db.transaction(async (tx) => {
    const list = await findWatchlist(tx, watchlistId, true);
    const [row] = await tx.db
      .insert(watchlistEntries)
      .values({
        watchlistId,
        plateNumber: parsed.plate,
        plateNormalized: parsed.key,
        notes: input.notes ?? null,
        addedBy: actor.userId,
        addedAt: ctx.clock.now(),
        expiresAt: input.expires_at ? new Date(input.expires_at) : null,
        priority: input.priority ?? null,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new HubError('conflict', `${parsed.plate} is already on this watchlist (or a plate OCR reads the same, e.g. O for 0)`);
    const retroHunt = hunt
      ? await huntHandAdded(
          tx,
          list,
          [
            {
              id: row.id,
              plate_number: row.plateNumber,
              plate_normalized: row.plateNormalized,
              notes: row.notes,
              expires_at: row.expiresAt,
              priority: row.priority,
            },
          ],
          { userId: actor.userId, now: row.addedAt, hunt: hunt.hunt },
        )
      : undefined;
    await audit(tx, ctx, actor, 'watchlist.entry_add', 'watchlist', watchlistId, {
      entry_id: row.id,
      plate: row.plateNumber,
      ...(retroHunt ? { historical_hits: retroHunt.hits } : {}),
    });
    await notifyWatchlistChanged(tx, watchlistId);
    return retroHunt ? { ...row, retroHunt } : row;
  });
}

export async function updateEntryNotes(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  watchlistId: string,
  entryId: string,
  notes: string | null,
): Promise<EntryRow> {
  if (!isUuid(entryId)) throw new HubError('not_found', 'no such entry');
  return ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId, true);
    const [row] = await tx.db
      .update(watchlistEntries)
      .set({ notes })
      .where(and(eq(watchlistEntries.id, entryId), eq(watchlistEntries.watchlistId, watchlistId)))
      .returning();
    if (!row) throw new HubError('not_found', 'no such entry');
    await audit(tx, ctx, actor, 'watchlist.entry_update', 'watchlist', watchlistId, { entry_id: entryId, plate: row.plateNumber });
    await notifyWatchlistChanged(tx, watchlistId);
    return row;
  });
}

export async function removeEntry(ctx: WatchlistContext, actor: WatchlistActor, watchlistId: string, entryId: string): Promise<void> {
  if (!isUuid(entryId)) throw new HubError('not_found', 'no such entry');
  await ctx.db.transaction(async (tx) => {
    await findWatchlist(tx, watchlistId, true);
    const [row] = await tx.db
      .delete(watchlistEntries)
      .where(and(eq(watchlistEntries.id, entryId), eq(watchlistEntries.watchlistId, watchlistId)))
      .returning();
    if (!row) throw new HubError('not_found', 'no such entry');
    await audit(tx, ctx, actor, 'watchlist.entry_remove', 'watchlist', watchlistId, { entry_id: entryId, plate: row.plateNumber });
    await notifyWatchlistChanged(tx, watchlistId);
  });
}

export const DEFAULT_ENTRY_PAGE = 100;
export const MAX_ENTRY_PAGE = 1000;

/** Ordered by plate; `after` is the last plate of the previous page (keyset, stable under inserts). */
export async function listEntries(
  ctx: WatchlistContext,
  watchlistId: string,
  page: { after?: string | undefined; limit: number },
): Promise<{ entries: EntryRow[]; next: string | null }> {
  await findWatchlist(ctx.db, watchlistId);
  const rows = await ctx.db.db
    .select()
    .from(watchlistEntries)
    .where(and(eq(watchlistEntries.watchlistId, watchlistId), page.after ? gt(watchlistEntries.plateNormalized, page.after) : undefined))
    .orderBy(asc(watchlistEntries.plateNormalized))
    .limit(page.limit + 1);
  const more = rows.length > page.limit;
  const entries = more ? rows.slice(0, page.limit) : rows;
  return { entries, next: more ? (entries.at(-1)?.plateNormalized ?? null) : null };
}

export async function exportEntries(
  ctx: WatchlistContext,
  watchlistId: string,
  options: { withRecipients?: boolean } = {},
): Promise<{ name: string; entries: EntryRow[]; rule: { mode: string; scope: unknown } | undefined; recipients: RecipientsBody | undefined }> {
  const list = await findWatchlist(ctx.db, watchlistId);
  const entries = await ctx.db.db
    .select()
    .from(watchlistEntries)
    .where(eq(watchlistEntries.watchlistId, watchlistId))
    .orderBy(asc(watchlistEntries.plateNormalized));
  // A list with a rule exports it too (docs/watchlists.md "Import and export").
  const rule = list.mode !== 'listed' || list.scope ? { mode: list.mode, scope: list.scope } : undefined;
  // Recipients only for those who may read them (operators and admins: "Recipients").
  const recipients = options.withRecipients ? await recipientsBody(ctx.db, watchlistId) : undefined;
  return { name: list.name, entries, rule, recipients };
}

export interface ImportReport {
  added: number;
  /** Lines whose plate the watchlist already holds: left as they are (notes included). */
  already_listed: number[];
  errors: CsvLineError[];
  /** Present when the import hunted (the API's does): how far back, and the historical hits raised. */
  retro_hunt?: RetroHuntReport;
  /** Present when the file has `list_recipients`: the chats and webhook targets this hub does not know, left out. */
  recipients_dropped?: DroppedRecipients;
}

/**
 * CSV `plate,notes`, up to 10,000 rows: every good row is added in one transaction (one
 * statement), plates already listed are reported and left alone, bad lines are reported
 * with their line number. A file with a bad header or too many rows adds nothing.
 */
export async function importEntries(
  ctx: WatchlistContext,
  actor: WatchlistActor & { role?: RecipientsActor['role'] },
  watchlistId: string,
  csv: string,
  hunt?: HandAddedHunt,
): Promise<ImportReport> {
  const parsed = parseWatchlistCsv(csv, watchedPlate);
  if ('fatal' in parsed) throw new HubError('bad_request', parsed.fatal);
  const settings = parsed.list && (parsed.list.mode !== undefined || parsed.list.scope !== undefined) ? listSettingsOf(parsed.list) : undefined;
  return ctx.db.transaction(async (tx) => {
    const list = await findWatchlist(tx, watchlistId, true);
    const now = ctx.clock.now();
    if (settings) {
      await checkRule(tx, watchlistId, list.kind, { mode: settings.mode ?? list.mode, scope: settings.scope === undefined ? list.scope : settings.scope });
      await tx.db
        .update(watchlists)
        .set({ ...(settings.mode ? { mode: settings.mode } : {}), ...(settings.scope !== undefined ? { scope: settings.scope } : {}) })
        .where(eq(watchlists.id, watchlistId));
      // The hunt below reads the list's rule in this transaction, so it hunts under the imported one.
    }
    const recipientsJson = parsed.list?.recipients;
    const dropped =
      recipientsJson === undefined ? undefined : await importRecipients(tx, ctx, { ...actor, role: actor.role ?? 'operator' }, watchlistId, recipientsJson);
    const inserted =
      parsed.entries.length === 0
        ? []
        : await tx.sql<{ id: string; plate_number: string; plate_normalized: string; notes: string | null }>(
            `INSERT INTO watchlist_entries (watchlist_id, plate_number, plate_normalized, notes, added_by, added_at)
             SELECT $1::uuid, v.plate, v.key, v.notes, $2::uuid, $3::timestamptz
             FROM json_to_recordset($4::json) AS v (plate text, key text, notes text)
             ON CONFLICT (watchlist_id, plate_normalized) DO NOTHING
             RETURNING id, plate_number, plate_normalized, notes`,
            [watchlistId, actor.userId, now.toISOString(), JSON.stringify(parsed.entries.map((e) => ({ plate: e.plate, key: e.key, notes: e.notes })))],
          );
    const added = new Set(inserted.map((r) => r.plate_normalized));
    const report: ImportReport = {
      added: added.size,
      already_listed: parsed.entries.filter((e) => !added.has(e.key)).map((e) => e.line),
      errors: parsed.errors,
      ...(dropped ? { recipients_dropped: dropped } : {}),
    };
    if (hunt) {
      const rows = inserted.map((r) => ({ ...r, id: String(r.id), expires_at: null, priority: null }));
      report.retro_hunt = await huntHandAdded(tx, list, rows, { userId: actor.userId, now, hunt: hunt.hunt });
    }
    await tx.db.update(watchlists).set({ updatedAt: now }).where(eq(watchlists.id, watchlistId));
    await audit(tx, ctx, actor, 'watchlist.import', 'watchlist', watchlistId, {
      added: report.added,
      already_listed: report.already_listed.length,
      errors: report.errors.length,
      ...(report.retro_hunt ? { historical_hits: report.retro_hunt.hits } : {}),
      ...(settings ? { list_settings: settings } : {}),
      ...(dropped ? { recipients_dropped: dropped } : {}),
    });
    await notifyWatchlistChanged(tx, watchlistId);
    return report;
  });
}

/**
 * The `list_mode` / `list_scope` columns checked like the API's fields (400 naming the
 * column): an empty `list_scope` means no scope, an empty `list_mode` leaves the mode.
 */
function listSettingsOf(list: { mode?: string; scope?: string }): { mode?: WatchlistMode; scope?: StoredScope | null } {
  const out: { mode?: WatchlistMode; scope?: StoredScope | null } = {};
  if (list.mode) {
    const mode = z.enum(watchlistModes).safeParse(list.mode);
    if (!mode.success) throw new HubError('bad_request', `list_mode must be listed or allow_list; got "${list.mode.slice(0, 40)}"`);
    out.mode = mode.data;
  }
  if (list.scope !== undefined) {
    if (list.scope === '') out.scope = null;
    else {
      let json: unknown;
      try {
        json = JSON.parse(list.scope);
      } catch {
        throw new HubError('bad_request', 'list_scope is not JSON (the scope as the API takes it)');
      }
      const scope = scopeSchema.safeParse(json);
      if (!scope.success)
        throw new HubError(
          'bad_request',
          `list_scope: ${scope.error.issues
            .map((i) => `${i.path.join('.')} ${i.message}`.trim())
            .join('; ')
            .slice(0, 300)}`,
        );
      out.scope = scope.data;
    }
  }
  return out;
}
