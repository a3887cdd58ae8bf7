/**
 * For pattern search tests (pattern-page.test.ts, prefix-page.test.ts): reads uploaded through
 * the real batch endpoint, and the page the plain statement gives, which a search's own
 * route must equal row for row.
 */
import type { AdminTestContext } from '../admin/admin.test-helper.ts';
import { jpegLike, sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { buildSearch } from './sql.ts';
import type { SearchQuery } from './params.ts';

/** A newest-first pattern search of 7 a page, as the tests page through it; `extra` overrides. */
export function patternQuery(plate: SearchQuery['plate'], extra: Partial<SearchQuery> = {}): SearchQuery {
  return {
    plate,
    collectorIds: [],
    page: 1,
    perPage: 7,
    sort: 'captured_at',
    order: 'desc',
    purpose: { purpose: 'criminal_investigation', case_number: 'T-1', reason: 'test' },
    ...extra,
  };
}

/** Uploads reads given as [plate text, milliseconds before `now`], 20 to a batch. */
export async function uploadReads(ctx: AdminTestContext, apiKey: string, reads: ReadonlyArray<readonly [string, number]>, now: Date): Promise<void> {
  for (let i = 0; i < reads.length; i += 20) {
    await uploadBatch(
      ctx.app,
      apiKey,
      reads.slice(i, i + 20).map(([text, ago]) => ({
        detection: sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(now.getTime() - ago).toISOString() }),
        plateCrop: jpegLike(300),
      })),
    );
  }
}

/** The ids the page must hold: the plain statement (no range, no month walk), every match sorted, then the slice. */
export async function plainPage(ctx: AdminTestContext, q: SearchQuery): Promise<string[]> {
  const built = buildSearch(q);
  const rows = await ctx.deps.db.sql<{ id: string }>(
    `SELECT d.id::text AS id FROM detections d WHERE ${built.where} ORDER BY d.captured_at DESC, d.id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`,
    built.params,
  );
  return rows.map((r) => r.id);
}
