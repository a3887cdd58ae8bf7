import { EXPORT_DETECTIONS_PATH } from '../platform/http/paths.ts';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { every } from 'hono/combine';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { loadOrCreateHubKey } from '../collectors/hub-key.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import type { ImageStore } from '../images/image-store.ts';
import { HubError } from '../platform/errors.ts';
import { parseSearchParams } from '../search/params.ts';
import { exportedDetectionIds } from './select.ts';
import { auditLookup, lookupQuery, statedPurpose } from '../search/lookup-audit.ts';
import { scopedQuery } from '../search/scoped-query.ts';
import { requestScope } from '../sites/request-scope.ts';
import { buildExport, exportRows, MAX_EXPORT_DETECTIONS } from './build.ts';

/**
 * `GET /api/v1/export/detections?<search parameters>&purpose=…[&case_number=…][&reason=…]`
 * (docs/evidence-export.md):
 * every detection the search matches (at most 1,000; `page`/`per_page` ignored) as a signed
 * zip. Any signed-in user (they could search the same), 5 a minute (the `GET
 * /api/v1/export/*` limit), audited with the purpose, case number, note and count.
 */
export function evidenceRoutes(deps: PlatformDeps & { images: ImageStore }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get(EXPORT_DETECTIONS_PATH, every(requireUser(deps), rateLimit(deps, RATE_LIMITS.export)), async (c) => {
    const params = new URL(c.req.url).searchParams;
    const parsed = parseSearchParams(params);
    if (!parsed.ok) throw new HubError('bad_request', `${parsed.field}: ${parsed.message}`);
    const why = await statedPurpose(deps, parsed.query.purpose);
    // Cut to the user's sites: outside them an export finds nothing, as if nothing matched.
    const scoped = scopedQuery(await requestScope(deps.db, c), parsed.query);
    const ids = scoped ? await exportedDetectionIds(deps.db, scoped, MAX_EXPORT_DETECTIONS) : [];
    if (ids.length === 0) throw new HubError('not_found', 'no detection matches: nothing to export');
    if (ids.length > MAX_EXPORT_DETECTIONS)
      throw new HubError('bad_request', `the search matches more than ${MAX_EXPORT_DETECTIONS} detections: narrow it (time range, collectors)`);
    const rows = await exportRows(deps.db, ids);
    const key = await loadOrCreateHubKey(deps.db, deps.clock.now());
    const query = lookupQuery(c);
    const createdAt = deps.clock.now();
    const stream = await buildExport({
      rows,
      images: deps.images,
      signingKey: key,
      createdAt,
      createdBy: c.get('user').id,
      // The manifest names why, as the audit row does: purpose and case number beside the query.
      reason: why.reason ?? `purpose ${why.purpose}`,
      query: { ...query, purpose: why.purpose, ...(why.case_number ? { case_number: why.case_number } : {}) },
    });
    await auditLookup(deps, c, 'export.detections', why, { query, result_count: rows.length });
    const name = `evidence-${createdAt.toISOString().replace(/[:.]/g, '-')}.zip`;
    return c.body(Readable.toWeb(stream) as unknown as ReadableStream, 200, {
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${name}"`,
      'Cache-Control': 'no-store',
    });
  });
  return app;
}
