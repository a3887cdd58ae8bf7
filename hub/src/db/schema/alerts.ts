import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { users } from './users.ts';
import { bigintString, timestamptz } from './columns.ts';
import { detectionKeys } from './detection-keys.ts';
import { watchlistEntries } from './watchlist-entries.ts';
import { watchlists } from './watchlists.ts';

/** `not_listed`: an allow-list's alert, a plate the list does not hold (0041). */
export const alertMatchKinds = ['exact', 'ocr', 'one_edit', 'not_listed'] as const;
export type AlertMatchKind = (typeof alertMatchKinds)[number];
export const alertStates = ['new', 'acknowledged', 'dismissed'] as const;
export const alertStateSchema = z.enum(alertStates);
export type AlertState = z.infer<typeof alertStateSchema>;
/** An operator's verdict on an alert (0026; docs/alerts.md "Verification"). */
export const alertVerifications = ['unverified', 'confirmed', 'misread'] as const;
export type AlertVerification = (typeof alertVerifications)[number];
export const alertVerdictSchema = z.enum(['confirmed', 'misread']);
export type AlertVerdict = z.infer<typeof alertVerdictSchema>;

/** The entry as it was when the alert was raised (0011): it may be edited or removed later. */
export interface AlertEntrySnapshot {
  plate_number?: string;
  notes?: string | null;
  added_by?: string | null;
  added_at?: string;
  /** The entry's own priority when it had one (0031). */
  priority?: string;
  /** A `one_edit` alert (0025): how the read differs from the entry (docs/watchlists.md). */
  /** The list's scope in words when it had one (0041), e.g. "allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris". */
  scope?: string;
  match?: { kind: 'substitution' | 'insertion' | 'deletion'; position: number; entry_char?: string; read_char?: string };
}

/** One alert per (detection, watchlist): a matcher re-run never doubles an alert. */
export const alerts = pgTable(
  'alerts',
  {
    id: bigintString('id')
      .primaryKey()
      .default(sql`nextval('alerts_id_seq')`),
    detectionId: bigintString('detection_id')
      .notNull()
      .references(() => detectionKeys.detectionPk),
    watchlistId: uuid('watchlist_id')
      .notNull()
      .references(() => watchlists.id),
    watchlistEntryId: uuid('watchlist_entry_id').references(() => watchlistEntries.id, { onDelete: 'set null' }),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    matchKind: text('match_kind', { enum: alertMatchKinds }).notNull().default('exact'),
    entrySnapshot: jsonb('entry_snapshot').$type<AlertEntrySnapshot>().notNull().default({}),
    state: text('state', { enum: alertStates }).notNull().default('new'),
    handledBy: uuid('handled_by').references(() => users.id),
    handledAt: timestamptz('handled_at'),
    verification: text('verification', { enum: alertVerifications }).notNull().default('unverified'),
    verifiedBy: uuid('verified_by').references(() => users.id),
    verifiedAt: timestamptz('verified_at'),
    verificationNote: text('verification_note'),
    /** Raised by a retro-hunt for a read stored before its entry was added (0031; docs/watchlists.md "Retro-hunt"). */
    historical: boolean('historical').notNull().default(false),
  },
  (t) => [unique().on(t.detectionId, t.watchlistId), index('alerts_created_idx').on(t.createdAt), index('alerts_watchlist_id_idx').on(t.watchlistId, t.id)],
);
