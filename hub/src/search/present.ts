/**
 * A detection search as the API answers it (`GET /api/v1/events/search`, docs/search.md):
 * one page of results and the paging meta. The dashboard's search page reads the same types
 * (`import type`), so the wire shape is written once, here.
 */
import { imageLink, type LinkSigner } from '../images/signed-link.ts';
import type { SearchQuery } from './params.ts';
import type { SearchPage, SearchRow } from './search.ts';

/** One detection in a search answer; `similarity` only for fuzzy and similarity-ranked searches. */
export function presentSearchResult(r: SearchRow, signer: LinkSigner) {
  return {
    id: r.id,
    plate_number: r.plate_number,
    captured_at: new Date(r.captured_at).toISOString(),
    confidence: Number(r.confidence),
    direction: r.direction,
    collector: { id: r.collector_id, name: r.site_name },
    images: { full_url: imageLink(signer, r.full_image_hash), crop_url: imageLink(signer, r.crop_image_hash) },
    ...(r.similarity !== undefined ? { similarity: Number(Number(r.similarity).toFixed(3)) } : {}),
  };
}

export type SearchResult = ReturnType<typeof presentSearchResult>;

export interface SearchResultPage {
  data: SearchResult[];
  meta: { page: number; per_page: number; total: number; total_pages: number; total_is_lower_bound: boolean };
}

export function presentSearchPage(page: SearchPage, q: Pick<SearchQuery, 'page' | 'perPage'>, signer: LinkSigner): SearchResultPage {
  return {
    data: page.rows.map((r) => presentSearchResult(r, signer)),
    meta: { page: q.page, per_page: q.perPage, total: page.total, total_pages: Math.ceil(page.total / q.perPage), total_is_lower_bound: page.capped },
  };
}
