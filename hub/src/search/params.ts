/**
 * `GET /api/v1/events/search` parameters (docs/search.md). Pure:
 * the query string in, a checked query out, or a 400 naming the field.
 */
import { isoTimeAsDate } from '@alpr/shared/validation/params';
import { z } from 'zod';
import { confusionKey, ocrNormalize } from '@alpr/shared/detection/ocr';
import { safeText } from '@alpr/shared/text/hostile-text';
import { queryProblem } from '../platform/http/validate.ts';
import type { LookupPurpose } from '../audit/purposes/check.ts';
import { lookupPurposeFields } from '../audit/purposes/schema.ts';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;
export const SORTS = ['captured_at', 'confidence', 'plate_number'] as const;

export type PlateMode =
  | { kind: 'any' }
  | { kind: 'exact'; value: string }
  /** `LIKE` pattern over plate_normalized (`*` -> `%`). */
  | { kind: 'wildcard'; pattern: string; shape: 'prefix' | 'suffix' | 'contains' | 'pattern' }
  | { kind: 'fuzzy'; key: string }
  /** Within one edit of the query's confusion key (docs/search.md "One edit"). */
  | { kind: 'one_edit'; normalized: string; key: string };

/** `plate_match`: `fuzzy` is `plate_fuzzy=true`; `one_edit` the one-edit search; absent: exact or a pattern. */
export const PLATE_MATCHES = ['fuzzy', 'one_edit'] as const;
export type PlateMatch = (typeof PLATE_MATCHES)[number] | 'plain';

/** Shorter queries match too much at one edit (a 2-character query: every 1- to 3-character read). */
export const ONE_EDIT_MIN_LENGTH = 4;

export interface SearchQuery {
  plate: PlateMode;
  startDate?: Date;
  endDate?: Date;
  collectorIds: string[];
  minConfidence?: number;
  direction?: 'entering' | 'exiting';
  bbox?: { latMin: number; latMax: number; lonMin: number; lonMax: number };
  page: number;
  perPage: number;
  sort: (typeof SORTS)[number];
  order: 'asc' | 'desc';
  /** Why (docs/security.md "Purposes"): checked against the purposes table by the route. */
  purpose: LookupPurpose;
}

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const finite = (min: number, max: number) =>
  z.coerce.number().refine((n) => Number.isFinite(n) && n >= min && n <= max, `must be a number from ${min} to ${max}`);
const datetime = isoTimeAsDate.refine((d) => d.getUTCFullYear() >= 2000 && d.getUTCFullYear() <= 2200, 'must be between the years 2000 and 2200');

const schema = z
  .object({
    plate: safeText(z.string().max(40)).optional(),
    plate_fuzzy: bool.optional(),
    plate_match: z.enum(PLATE_MATCHES).optional(),
    start_date: datetime.optional(),
    end_date: datetime.optional(),
    collector_id: z.array(z.string().uuid('must be a collector id (uuid)')).max(100).optional(),
    min_confidence: finite(0, 1).optional(),
    direction: z.enum(['entering', 'leaving', 'exiting']).optional(),
    lat_min: finite(-90, 90).optional(),
    lat_max: finite(-90, 90).optional(),
    lon_min: finite(-180, 180).optional(),
    lon_max: finite(-180, 180).optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
    sort: z.enum(SORTS).default('captured_at'),
    order: z.enum(['asc', 'desc']).default('desc'),
    ...lookupPurposeFields,
  })
  .strict();

export type ParsedSearch = { ok: true; query: SearchQuery } | { ok: false; field: string; message: string };

/**
 * The plate parameter: exact, or `*` anywhere as "any characters". Each literal part is
 * OCR-normalized like the stored `plate_normalized` (`ab-12` -> `AB12`, O -> 0...), so a
 * pattern matches what an exact search would.
 */
export function plateMode(raw: string | undefined, fuzzy: boolean, match: PlateMatch = fuzzy ? 'fuzzy' : 'plain'): PlateMode | { error: string } {
  if (match === 'one_edit') {
    if (raw === undefined || raw.trim() === '') return { error: 'plate_match=one_edit needs a plate' };
    if (raw.includes('*')) return { error: 'a one-edit search takes a plate, not a pattern' };
    const normalized = ocrNormalize(raw);
    if (Array.from(normalized).length < ONE_EDIT_MIN_LENGTH) return { error: `a one-edit search needs at least ${ONE_EDIT_MIN_LENGTH} letters or digits` };
    return { kind: 'one_edit', normalized, key: confusionKey(normalized) };
  }
  if (raw === undefined || raw.trim() === '') return match === 'fuzzy' ? { error: 'plate_fuzzy needs a plate' } : { kind: 'any' };
  if (match === 'fuzzy') {
    if (raw.includes('*')) return { error: 'a fuzzy search takes a plate, not a pattern' };
    const key = confusionKey(raw);
    return key.length >= 2 ? { kind: 'fuzzy', key } : { error: 'a fuzzy search needs at least 2 letters or digits' };
  }
  if (!raw.includes('*')) {
    const value = ocrNormalize(raw);
    return value === '' ? { error: 'no letters or digits to search for' } : { kind: 'exact', value };
  }
  const parts = raw.split('*').map(ocrNormalize);
  const literal = parts.join('');
  if (literal.length < 2) return { error: 'a pattern needs at least 2 letters or digits besides *' };
  const pattern = parts.join('%').replace(/%+/g, '%');
  const starts = raw.trimStart().startsWith('*');
  const ends = raw.trimEnd().endsWith('*');
  const inner = parts.slice(1, -1).some((p) => p !== '');
  const shape = inner ? 'pattern' : starts && ends ? 'contains' : ends ? 'prefix' : starts ? 'suffix' : 'pattern';
  return { kind: 'wildcard', pattern, shape };
}

/** URLSearchParams -> object; `collector_id` may repeat or be comma-separated. */
function toObject(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of params) {
    if (key === 'collector_id' || key === 'collector_id[]') {
      const list = (out.collector_id as string[] | undefined) ?? [];
      list.push(
        ...value
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== ''),
      );
      out.collector_id = list;
    } else if (key in out) {
      out[key] = Symbol.for('repeated');
    } else out[key] = value;
  }
  return out;
}

export function parseSearchParams(params: URLSearchParams): ParsedSearch {
  const raw = toObject(params);
  for (const [key, value] of Object.entries(raw)) if (value === Symbol.for('repeated')) return { ok: false, field: key, message: 'given more than once' };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, ...queryProblem(parsed.error) };
  const p = parsed.data;
  if (p.plate_fuzzy !== undefined && p.plate_match !== undefined && p.plate_fuzzy !== (p.plate_match === 'fuzzy'))
    return { ok: false, field: 'plate_match', message: `plate_fuzzy=${p.plate_fuzzy} contradicts plate_match=${p.plate_match}` };
  const plate = plateMode(p.plate, p.plate_fuzzy ?? false, p.plate_match ?? (p.plate_fuzzy ? 'fuzzy' : 'plain'));
  if ('error' in plate) return { ok: false, field: 'plate', message: plate.error };
  if (p.start_date && p.end_date && p.start_date > p.end_date) return { ok: false, field: 'end_date', message: 'is before start_date' };
  const box = [p.lat_min, p.lat_max, p.lon_min, p.lon_max];
  if (box.some((v) => v !== undefined) && box.some((v) => v === undefined))
    return { ok: false, field: 'lat_min', message: 'a bounding box needs lat_min, lat_max, lon_min and lon_max' };
  if (p.lat_min !== undefined && p.lat_max !== undefined && p.lat_min > p.lat_max) return { ok: false, field: 'lat_max', message: 'is below lat_min' };
  if (p.lon_min !== undefined && p.lon_max !== undefined && p.lon_min > p.lon_max)
    return { ok: false, field: 'lon_max', message: 'is below lon_min (a box across the antimeridian: search twice)' };
  return {
    ok: true,
    query: {
      plate,
      ...(p.start_date ? { startDate: p.start_date } : {}),
      ...(p.end_date ? { endDate: p.end_date } : {}),
      collectorIds: [...new Set(p.collector_id ?? [])],
      ...(p.min_confidence !== undefined ? { minConfidence: p.min_confidence } : {}),
      ...(p.direction ? { direction: p.direction === 'leaving' ? 'exiting' : p.direction } : {}),
      ...(p.lat_min !== undefined
        ? { bbox: { latMin: p.lat_min, latMax: p.lat_max as number, lonMin: p.lon_min as number, lonMax: p.lon_max as number } }
        : {}),
      page: p.page,
      perPage: p.per_page,
      sort: p.sort,
      order: p.order,
      purpose: { purpose: p.purpose, case_number: p.case_number, reason: p.reason },
    },
  };
}
