/**
 * A feed's body into entries (docs/watchlists.md "Feed formats"). Pure. CSV reuses the
 * import's record splitter (../csv.ts) with two more optional columns; JSON is an array of
 * entries or `{ "entries": [...] }`. Any bad row refuses the whole feed: skipping a row
 * would remove that plate from the list, and a stolen car dropped by a typo is worse than
 * a list one update behind.
 */
import { z } from 'zod';
import { textProblem } from '@alpr/shared/text/hostile-text';
import { watchlistPrioritySchema, type WatchlistPriority } from '../../db/schema/watchlists.ts';
import { MAX_IMPORT_ROWS, MAX_NOTES_LENGTH, splitCsvRecords } from '../csv.ts';
import { watchedPlate } from '../plate.ts';

export const feedFormats = ['csv', 'json'] as const;
export type FeedFormat = (typeof feedFormats)[number];

export interface FeedEntry {
  plate: string;
  /** The matcher's key: two entries must not share it. */
  key: string;
  notes: string | null;
  expiresAt: Date | null;
  priority: WatchlistPriority | null;
}

export type ParsedFeed = { entries: FeedEntry[] } | { error: string };

const CSV_COLUMNS = ['plate', 'notes', 'expires_at', 'priority'] as const;
/** How many bad rows the error names: enough to fix a file, short enough for a status line. */
const NAMED_PROBLEMS = 3;

interface RawEntry {
  where: string;
  plate: unknown;
  notes?: unknown;
  expires_at?: unknown;
  priority?: unknown;
}

function entryOf(raw: RawEntry): FeedEntry | string {
  if (typeof raw.plate !== 'string') return `${raw.where}: plate must be text`;
  const notes = raw.notes === undefined || raw.notes === null ? '' : raw.notes;
  if (typeof notes !== 'string') return `${raw.where}: notes must be text`;
  const problem = textProblem(raw.plate) ?? textProblem(notes);
  if (problem) return `${raw.where}: ${problem}`;
  const plate = watchedPlate(raw.plate);
  if ('error' in plate) return `${raw.where}: ${plate.error}`;
  if (notes.trim().length > MAX_NOTES_LENGTH) return `${raw.where}: notes longer than ${MAX_NOTES_LENGTH} characters`;
  let expiresAt: Date | null = null;
  if (raw.expires_at !== undefined && raw.expires_at !== null && raw.expires_at !== '') {
    const parsed = z.string().datetime({ offset: true }).safeParse(raw.expires_at);
    if (!parsed.success) return `${raw.where}: expires_at must be an ISO 8601 time with a zone, e.g. 2026-12-31T23:59:59Z`;
    expiresAt = new Date(parsed.data);
  }
  let priority: WatchlistPriority | null = null;
  if (raw.priority !== undefined && raw.priority !== null && raw.priority !== '') {
    const parsed = watchlistPrioritySchema.safeParse(typeof raw.priority === 'string' ? raw.priority.trim().toLowerCase() : raw.priority);
    if (!parsed.success) return `${raw.where}: priority must be one of low, medium, high, critical`;
    priority = parsed.data;
  }
  return { plate: plate.plate, key: plate.key, notes: notes.trim() === '' ? null : notes.trim(), expiresAt, priority };
}

function collect(raws: readonly RawEntry[]): ParsedFeed {
  if (raws.length > MAX_IMPORT_ROWS) return { error: `at most ${MAX_IMPORT_ROWS} entries per feed; this one has ${raws.length}` };
  const entries: FeedEntry[] = [];
  const problems: string[] = [];
  const firstAt = new Map<string, string>();
  for (const raw of raws) {
    const entry = entryOf(raw);
    if (typeof entry === 'string') {
      problems.push(entry);
      continue;
    }
    const seen = firstAt.get(entry.key);
    if (seen !== undefined) {
      problems.push(`${raw.where}: ${entry.plate} is the same plate as ${seen}`);
      continue;
    }
    firstAt.set(entry.key, raw.where);
    entries.push(entry);
  }
  if (problems.length > 0) {
    const more = problems.length > NAMED_PROBLEMS ? ` (and ${problems.length - NAMED_PROBLEMS} more)` : '';
    return { error: `${problems.length} bad entr${problems.length === 1 ? 'y' : 'ies'}: ${problems.slice(0, NAMED_PROBLEMS).join('; ')}${more}` };
  }
  return { entries };
}

export function parseCsvFeed(text: string): ParsedFeed {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const split = splitCsvRecords(body);
  if (split.error) return { error: `line ${split.error.line}: ${split.error.error}` };
  const [header, ...rows] = split.records;
  if (!header) return { error: 'the feed is empty: expected a header row "plate,notes,expires_at,priority"' };
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const known = new Set<string>(CSV_COLUMNS);
  if (!names.includes('plate') || names.some((n) => !known.has(n)) || new Set(names).size !== names.length) {
    return { error: `header row must name plate and optionally notes, expires_at, priority; got "${header.fields.join(',').slice(0, 100)}"` };
  }
  const raws: RawEntry[] = [];
  for (const { line, fields } of rows) {
    const where = `line ${line}`;
    if (fields.length !== names.length) return { error: `${where}: expected ${names.length} fields, got ${fields.length}` };
    const row: Record<string, string> = {};
    names.forEach((n, i) => (row[n] = fields[i] ?? ''));
    raws.push({ where, plate: row.plate, notes: row.notes, expires_at: row.expires_at?.trim(), priority: row.priority });
  }
  return collect(raws);
}

export function parseJsonFeed(text: string): ParsedFeed {
  let doc: unknown;
  try {
    doc = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    return { error: 'the feed is not JSON' };
  }
  const list = Array.isArray(doc) ? doc : doc !== null && typeof doc === 'object' && 'entries' in doc ? (doc as { entries: unknown }).entries : undefined;
  if (!Array.isArray(list)) return { error: 'expected a JSON array of entries or an object with an "entries" array' };
  const raws: RawEntry[] = [];
  for (const [i, item] of list.entries()) {
    const where = `entry ${i}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return { error: `${where}: expected an object with a "plate"` };
    const { plate, notes, expires_at, priority, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) return { error: `${where}: unknown field ${extra[0]?.slice(0, 40)} (plate, notes, expires_at, priority are known)` };
    raws.push({ where, plate, notes, expires_at, priority });
  }
  return collect(raws);
}

export function parseFeed(format: FeedFormat, text: string): ParsedFeed {
  return format === 'csv' ? parseCsvFeed(text) : parseJsonFeed(text);
}
