/**
 * Watchlist CSV (docs/watchlists.md "Import and export"). Pure: text in, rows and per-line
 * errors out. RFC 4180: comma separated, fields optionally in double quotes, `""` for a
 * quote inside quotes, CRLF or LF line ends. Header row `plate,notes` (case-insensitive,
 * `notes` optional, columns in any order, extra columns refused so a wrong file is noticed).
 */
import { textProblem } from '@alpr/shared/text/hostile-text';

export interface CsvEntry {
  /** 1-based line of the file the row started on (what an admin sees in an editor). */
  line: number;
  plate: string;
  /** What two rows must not share (the matcher's form of the plate). */
  key: string;
  notes: string | null;
}

export interface CsvLineError {
  line: number;
  error: string;
}

export interface ParsedCsv {
  entries: CsvEntry[];
  errors: CsvLineError[];
  /**
   * The list's own settings when the file has the `list_mode` / `list_scope` columns (an
   * export of a list with a rule; docs/watchlists.md "Import and export"): one value each,
   * '' for none. Absent when the file lacks the column.
   */
  list?: { mode?: string; scope?: string; recipients?: string };
}

/** The list columns: the same value on every row (an export repeats them), so any row may carry them. */
export const LIST_COLUMNS = ['list_mode', 'list_scope', 'list_recipients'] as const;

export const MAX_IMPORT_ROWS = 10_000;
export const MAX_NOTES_LENGTH = 500;

/** Records with the line each began on; a quote left open is reported, not swallowed. */
export function splitCsvRecords(text: string): { records: { line: number; fields: string[] }[]; error?: CsvLineError } {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let fieldStarted = false;
  const endRecord = (): void => {
    fields.push(field);
    // A blank line is no record (editors add one at the end).
    if (!(fields.length === 1 && fields[0] === '' && !fieldStarted)) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      fieldStarted = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      fieldStarted = true;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += ch;
      fieldStarted = true;
    }
  }
  if (quoted) return { records, error: { line: recordLine, error: 'a quoted field is never closed' } };
  if (field !== '' || fields.length > 0 || fieldStarted) endRecord();
  return { records };
}

/**
 * Entries and per-line errors. `normalize` returns the stored plate and its matching key,
 * or why the text is no plate. Two rows with one key (`AB12CDE`, `ab 12 cde`,
 * `AB12C0E`): the first wins, the second is an error naming the first's line.
 */
export function parseWatchlistCsv(text: string, normalize: (raw: string) => { plate: string; key: string } | { error: string }): ParsedCsv | { fatal: string } {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const split = splitCsvRecords(body);
  const [header, ...rows] = split.records;
  if (!header) return { fatal: 'the file is empty: expected a header row "plate,notes"' };
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const plateAt = names.indexOf('plate');
  const notesAt = names.indexOf('notes');
  const unknown = names.filter((n) => n !== 'plate' && n !== 'notes' && !(LIST_COLUMNS as readonly string[]).includes(n));
  if (plateAt < 0 || unknown.length > 0 || new Set(names).size !== names.length) {
    return {
      fatal: `header row must be "plate,notes" (notes optional; list_mode, list_scope, list_recipients for the list's own settings); got "${header.fields.join(',').slice(0, 100)}"`,
    };
  }
  const modeAt = names.indexOf('list_mode');
  const scopeAt = names.indexOf('list_scope');
  const recipientsAt = names.indexOf('list_recipients');
  const listValues: { mode?: Set<string>; scope?: Set<string>; recipients?: Set<string> } = {
    ...(modeAt >= 0 ? { mode: new Set<string>() } : {}),
    ...(scopeAt >= 0 ? { scope: new Set<string>() } : {}),
    ...(recipientsAt >= 0 ? { recipients: new Set<string>() } : {}),
  };
  if (rows.length > MAX_IMPORT_ROWS) return { fatal: `at most ${MAX_IMPORT_ROWS} rows per import; this file has ${rows.length}` };
  const entries: CsvEntry[] = [];
  const errors: CsvLineError[] = [];
  const firstLine = new Map<string, number>();
  for (const { line, fields } of rows) {
    if (fields.length !== names.length) {
      errors.push({ line, error: `expected ${names.length} field${names.length === 1 ? '' : 's'}, got ${fields.length}` });
      continue;
    }
    const rawPlate = fields[plateAt] ?? '';
    const rawNotes = notesAt >= 0 ? (fields[notesAt] ?? '').trim() : '';
    if (modeAt >= 0) listValues.mode?.add((fields[modeAt] ?? '').trim());
    if (scopeAt >= 0) listValues.scope?.add((fields[scopeAt] ?? '').trim());
    if (recipientsAt >= 0) listValues.recipients?.add((fields[recipientsAt] ?? '').trim());
    // The row an export writes for a list with settings and no entries: settings only.
    if (rawPlate.trim() === '' && rawNotes === '' && (modeAt >= 0 || scopeAt >= 0 || recipientsAt >= 0)) continue;
    const problem = textProblem(rawPlate) ?? textProblem(rawNotes);
    if (problem) {
      errors.push({ line, error: problem });
      continue;
    }
    const normalized = normalize(rawPlate);
    if ('error' in normalized) {
      errors.push({ line, error: normalized.error });
      continue;
    }
    if (rawNotes.length > MAX_NOTES_LENGTH) {
      errors.push({ line, error: `notes longer than ${MAX_NOTES_LENGTH} characters` });
      continue;
    }
    const seen = firstLine.get(normalized.key);
    if (seen !== undefined) {
      errors.push({ line, error: `${normalized.plate} is the same plate as line ${seen}` });
      continue;
    }
    firstLine.set(normalized.key, line);
    entries.push({ line, plate: normalized.plate, key: normalized.key, notes: rawNotes === '' ? null : rawNotes });
  }
  if (split.error) errors.push(split.error);
  const one = (values: Set<string> | undefined, column: string): string | { fatal: string } | undefined => {
    if (!values) return undefined;
    const distinct = [...values].filter((v) => v !== '');
    if (distinct.length > 1) return { fatal: `${column} must be the same on every row (it is the list's, not a plate's)` };
    return distinct[0] ?? '';
  };
  const mode = one(listValues.mode, 'list_mode');
  const scope = one(listValues.scope, 'list_scope');
  const recipients = one(listValues.recipients, 'list_recipients');
  if (typeof mode === 'object') return mode;
  if (typeof scope === 'object') return scope;
  if (typeof recipients === 'object') return recipients;
  if (mode === undefined && scope === undefined && recipients === undefined) return { entries, errors };
  return {
    entries,
    errors,
    list: { ...(mode !== undefined ? { mode } : {}), ...(scope !== undefined ? { scope } : {}), ...(recipients !== undefined ? { recipients } : {}) },
  };
}

/**
 * One CSV field. Quoted when it holds a comma, quote or line break; a leading `= + - @`
 * (or tab/CR) gets a `'` so a spreadsheet opening the export never runs it as a formula.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The export. A list with a rule adds `list_mode` and `list_scope` (the scope as the API's
 * JSON) on every row, so a re-import, or an import into a fresh list, keeps the scope; a list
 * with recipients, exported by someone who may read them, adds `list_recipients` (the body of
 * `PUT …/recipients` as JSON) the same way. An empty list with either gets one row with no
 * plate to carry them.
 */
export function formatWatchlistCsv(
  entries: readonly { plate: string; notes: string | null }[],
  list?: { mode: string; scope: unknown },
  recipients?: { chats: string[]; webhooks: string[]; mqtt: boolean },
): string {
  const header = ['plate', 'notes'];
  const tail: string[] = [];
  if (list) {
    header.push('list_mode', 'list_scope');
    tail.push(csvField(list.mode), csvField(list.scope ? JSON.stringify(list.scope) : ''));
  }
  if (recipients) {
    header.push('list_recipients');
    tail.push(csvField(JSON.stringify(recipients)));
  }
  const rows = entries.map((e) => [csvField(e.plate), csvField(e.notes ?? ''), ...tail].join(','));
  if (rows.length === 0 && tail.length > 0) rows.push(['', '', ...tail].join(','));
  return [header.join(','), ...rows].join('\r\n') + '\r\n';
}
