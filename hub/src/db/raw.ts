import { sql, type SQL } from 'drizzle-orm';

export type Row = Record<string, unknown>;

/**
 * Raw SQL with positional parameters `$1..$n`, the same on both drivers. Result values:
 * int8 -> decimal string, timestamptz/timestamp -> Date, bytea -> Buffer, numeric -> string,
 * json/jsonb -> parsed value. Parameters: Date -> ISO string, bigint -> string, plain
 * objects -> JSON text (for jsonb); arrays and Uint8Array pass through.
 */
export type RawQuery = <T extends Row = Row>(text: string, params?: readonly unknown[], options?: QueryOptions) => Promise<T[]>;

export interface QueryOptions {
  /**
   * Keep the statement prepared on its connection and reuse it (PostgreSQL; PGlite ignores
   * it). Unprepared, postgres.js sends every statement with parameters in two round trips
   * (parse and describe, then bind and execute) and cannot pipeline it with the next one;
   * prepared, a reuse is one round trip and the server skips the parse. Only for text
   * drawn from a fixed set (hot paths: ingest, alert queue, key lookup): each distinct text
   * stays prepared on the server until its connection closes.
   */
  prepare?: boolean;
}

const PLACEHOLDER = /\$(\d+)/;

/** The parameter index of placeholder `$n` (n as written), refused before the server when not given. */
function parameterIndex(n: string, count: number): number {
  const index = Number(n) - 1;
  if (index < 0 || index >= count) throw new RangeError(`query uses $${n} but ${count} parameter(s) were given`);
  return index;
}

/**
 * `params` as sent to postgres.js directly (prepared statements, session.ts): the same
 * checks and value conventions as toDrizzleSql.
 */
export function driverParams(text: string, params: readonly unknown[]): unknown[] {
  for (const match of text.matchAll(new RegExp(PLACEHOLDER.source, 'g'))) parameterIndex(match[1] ?? '', params.length);
  return params.map(serializeParam);
}

/** Turns `text` with `$n` placeholders into a drizzle SQL object with bound parameters. */
export function toDrizzleSql(text: string, params: readonly unknown[] = []): SQL {
  // split with a capture group: even indexes are SQL text, odd indexes are parameter numbers.
  const parts = text.split(new RegExp(PLACEHOLDER.source, 'g'));
  const chunks: SQL[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (i % 2 === 0) {
      if (part !== '') chunks.push(sql.raw(part));
      continue;
    }
    const index = parameterIndex(part, params.length);
    // sql.param, not sql`${v}`: drizzle would expand an array into a list of parameters.
    chunks.push(sql`${sql.param(serializeParam(params[index]))}`);
  }
  return sql.join(chunks);
}

function serializeParam(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
    return JSON.stringify(value);
  }
  return value;
}

/** Column type ids whose text we convert ourselves (drizzle makes both drivers return text). */
const OID = { int8: 20, bytea: 17, timestamp: 1114, timestamptz: 1184 } as const;

export interface ColumnType {
  name: string;
  oid: number;
}

/** Applies the value conventions of RawQuery to rows given their column types. */
export function normalizeRows<T extends Row>(rows: readonly Row[], columns: readonly ColumnType[]): T[] {
  const converters = columns
    .map((c) => ({ name: c.name, convert: converterFor(c.oid) }))
    .filter((c): c is { name: string; convert: (v: unknown) => unknown } => c.convert !== undefined);
  if (converters.length === 0) return rows as T[];
  return rows.map((row) => {
    const out: Row = { ...row };
    for (const { name, convert } of converters) {
      const v = out[name];
      if (v !== null && v !== undefined) out[name] = convert(v);
    }
    return out as T;
  });
}

function converterFor(oid: number): ((v: unknown) => unknown) | undefined {
  switch (oid) {
    case OID.int8:
      return (v) => String(v);
    case OID.bytea:
      return (v) => (Buffer.isBuffer(v) ? v : v instanceof Uint8Array ? Buffer.from(v) : v);
    case OID.timestamptz:
      return (v) => (typeof v === 'string' ? parsePgTimestamp(v, true) : v);
    case OID.timestamp:
      return (v) => (typeof v === 'string' ? parsePgTimestamp(v, false) : v);
    default:
      return undefined;
  }
}

/**
 * Parses PostgreSQL's text output ('2026-11-22 18:49:18.219+00', '... 12:00:00+05:30').
 * timestamp without time zone is read as UTC (everything is stored UTC). 'infinity' and
 * BC dates stay strings: a Date cannot hold them faithfully.
 */
export function parsePgTimestamp(text: string, withZone: boolean): Date | string {
  const m = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2}(?::?\d{2}){0,2})?$/.exec(text);
  if (!m) return text;
  const [, date, time, zone] = m;
  let offset = 'Z';
  if (withZone && zone) {
    const [hh, mm = '00'] = zone.slice(1).split(':');
    offset = `${zone[0]}${hh}:${mm}`;
  }
  const parsed = new Date(`${date}T${time}${offset}`);
  return Number.isNaN(parsed.getTime()) ? text : parsed;
}

/**
 * drizzle wraps driver errors ("Failed query: ..."); the raw helper rethrows the driver's
 * own error so callers see PostgreSQL's message and SQLSTATE `code` on both backends.
 */
export function unwrapDriverError(err: unknown): unknown {
  if (err instanceof Error && err.cause instanceof Error && 'code' in err.cause) return err.cause;
  return err;
}

/** postgres.js resolves to an array of rows carrying a `columns` description. */
export function rowsFromPostgresJs<T extends Row>(result: unknown): T[] {
  const rows = result as Row[] & { columns?: { name: string; type: number }[] };
  const columns: ColumnType[] = (rows.columns ?? []).map((c) => ({ name: c.name, oid: c.type }));
  return normalizeRows<T>([...rows], columns);
}
