/**
 * A detection search as the API answers it (`GET /api/v1/events/search`, docs/search.md):
 * one page of results and the paging meta. The dashboard's search page reads the same types
 * (`import type`), so the wire shape is written once, here.
 */
import { imageLink, type LinkSigner } from '../platform/signed-links/signed-link.ts';
import { confusionKey } from '@alpr/shared/detection/ocr';
import { classifyOneEdit, type PlateMatchDetail } from '@alpr/shared/detection/one-edit';
import type { SearchQuery } from './params.ts';
import type { SearchPage, SearchRow } from './search-page.ts';

/**
 * How a one-edit result matched (docs/search.md "One edit"): `position` counts the stored
 * plate's letters and digits from 0, the character the dashboard highlights.
 */
function presentMatch(m: PlateMatchDetail) {
  return {
    kind: m.kind,
    position: m.position,
    ...(m.queryChar !== undefined ? { query_char: m.queryChar } : {}),
    ...(m.plateChar !== undefined ? { plate_char: m.plateChar } : {}),
  };
}

/**
 * One detection in a search answer; `similarity` only for fuzzy and similarity-ranked
 * searches, `match` only for one-edit searches (`oneEditQuery`: the query's plate_normalized).
 */
export function presentSearchResult(r: SearchRow, signer: LinkSigner, oneEditQuery?: string) {
  const match = oneEditQuery !== undefined ? classifyOneEdit(oneEditQuery, r.plate_normalized, confusionKey) : null;
  return {
    id: r.id,
    plate_number: r.plate_number,
    captured_at: new Date(r.captured_at).toISOString(),
    confidence: Number(r.confidence),
    direction: r.direction,
    collector: { id: r.collector_id, name: r.site_name },
    images: { full_url: imageLink(signer, r.full_image_hash), crop_url: imageLink(signer, r.crop_image_hash) },
    ...(r.similarity !== undefined ? { similarity: Number(Number(r.similarity).toFixed(3)) } : {}),
    ...(match ? { match: presentMatch(match) } : {}),
  };
}

export type SearchResult = ReturnType<typeof presentSearchResult>;

export interface SearchResultPage {
  data: SearchResult[];
  meta: { page: number; per_page: number; total: number; total_pages: number; total_is_lower_bound: boolean };
}

export function presentSearchPage(page: SearchPage, q: Pick<SearchQuery, 'page' | 'perPage' | 'plate'>, signer: LinkSigner): SearchResultPage {
  const oneEditQuery = q.plate.kind === 'one_edit' ? q.plate.normalized : undefined;
  return {
    data: page.rows.map((r) => presentSearchResult(r, signer, oneEditQuery)),
    meta: { page: q.page, per_page: q.perPage, total: page.total, total_pages: Math.ceil(page.total / q.perPage), total_is_lower_bound: page.capped },
  };
}
