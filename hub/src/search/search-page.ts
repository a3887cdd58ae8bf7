/**
 * What a search page holds: the rows as read and the capped total. Apart from search.ts so
 * the page builders it calls (pattern-page.ts, postings-page.ts, prefix-page.ts) can name
 * them without importing back the module that imports them.
 */
export type SearchRow = {
  id: string;
  plate_number: string;
  captured_at: Date;
  confidence: number;
  direction: string;
  collector_id: string;
  site_name: string;
  full_image_hash: string | null;
  crop_image_hash: string | null;
  similarity?: number;
  plate_normalized: string;
};

export interface SearchPage {
  rows: SearchRow[];
  total: number;
  capped: boolean;
}
