/**
 * How CLI results are printed: `key: value` lines for people, one JSON document with
 * `--json` for scripts. Dates print as ISO-8601 UTC.
 */
export interface Output {
  record(fields: Record<string, unknown>): void;
  table(rows: Record<string, unknown>[]): void;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null)) as unknown;
}

export function createOutput(json: boolean, write: (line: string) => void): Output {
  if (json) {
    return {
      record: (fields) => write(JSON.stringify(plain(fields))),
      table: (rows) => write(JSON.stringify(plain(rows))),
    };
  }
  return {
    record(fields) {
      const width = Math.max(...Object.keys(fields).map((k) => k.length));
      for (const [key, value] of Object.entries(fields)) write(`${`${key}:`.padEnd(width + 2)}${text(value)}`);
    },
    table(rows) {
      const first = rows[0];
      if (!first) {
        write('(none)');
        return;
      }
      const columns = Object.keys(first);
      const cells = rows.map((row) => columns.map((c) => text(row[c])));
      const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
      write(
        columns
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      );
      for (const r of cells)
        write(
          r
            .map((cell, i) => cell.padEnd(widths[i] ?? 0))
            .join('  ')
            .trimEnd(),
        );
    },
  };
}
