import { DETECTION_ROUTE, EVENTS_SEARCH_PATH, PLATE_AUTOCOMPLETE_PATH, SEARCH_PATH } from '../platform/http/paths.ts';
import { Hono, type Context } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import type { AuthContext } from '../auth/context.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { HubError } from '../platform/errors.ts';
import { linkSigner } from '../platform/signed-links/link-signer.ts';
import { idParam, validQuery } from '../platform/http/validator.ts';
import { autocompletePlates, detectionDetail } from './detail.ts';
import { parseSearchParams } from './params.ts';
import { presentSearchPage } from './present.ts';
import { searchDetections } from './search.ts';
import { auditLookup, lookupQuery, statedPurpose } from './lookup-audit.ts';
import { lookupPurposeFields } from '../audit/purposes/schema.ts';
import type { StatedPurpose } from '../audit/purposes/check.ts';
import { requestScope } from '../sites/request-scope.ts';
import { scopedQuery } from './scoped-query.ts';

/**
 * Detection search, one detection, and plate autocomplete (docs/search.md). Every call
 * names a purpose from the admins' list (a case number where it requires one, a note
 * beside it) and is audited with who, when, why, the query and the result count: looking
 * people up is what the audit exists for.
 */
export function searchRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const user = requireUser(deps);
  const eventsLimit = every(user, rateLimit(deps, RATE_LIMITS.events));
  const searchLimit = every(user, rateLimit(deps, RATE_LIMITS.search));

  const audit = (c: Context<AuthEnv>, action: string, why: StatedPurpose, detail: Record<string, unknown>, detectionId: string | null = null) =>
    auditLookup(deps, c, action, why, detail, detectionId);

  const search = async (c: Context<AuthEnv>) => {
    const parsed = parseSearchParams(new URL(c.req.url).searchParams);
    if (!parsed.ok) throw new HubError('bad_request', `${parsed.field}: ${parsed.message}`);
    const q = parsed.query;
    const why = await statedPurpose(deps, q.purpose);
    // The user's sites cut the collectors asked for (none asked: all of theirs); nothing left
    // answers an empty page, the same as a search that matches nothing (docs/sites.md).
    const scoped = scopedQuery(await requestScope(deps.db, c), q);
    const page = scoped ? await searchDetections(deps.db, scoped) : { rows: [], total: 0, capped: false };
    const signer = linkSigner(deps.config, deps.clock.now());
    await audit(c, 'search.detections', why, { query: lookupQuery(c), result_count: page.total, total_is_lower_bound: page.capped });
    return c.json(presentSearchPage(page, q, signer));
  };
  app.get(EVENTS_SEARCH_PATH, eventsLimit, search);
  // The rate-limit table names `GET /api/v1/search` (60 a minute): the same search.
  app.get(SEARCH_PATH, searchLimit, search);

  const viewSchema = z.object(lookupPurposeFields).strict();
  app.get(DETECTION_ROUTE, eventsLimit, idParam, validQuery(viewSchema), async (c) => {
    const why = await statedPurpose(deps, c.req.valid('query'));
    const { id } = c.req.valid('param');
    const detail = await detectionDetail(deps.db, id, linkSigner(deps.config, deps.clock.now()), await requestScope(deps.db, c));
    await audit(c, 'search.detection_view', why, { result_count: 1 }, id);
    return c.json(detail);
  });

  const autocompleteSchema = z
    .object({ q: z.string().min(1).max(20), limit: z.coerce.number().int().min(1).max(50).default(10), ...lookupPurposeFields })
    .strict();
  app.get(PLATE_AUTOCOMPLETE_PATH, searchLimit, validQuery(autocompleteSchema), async (c) => {
    const query = c.req.valid('query');
    const prefix = ocrNormalize(query.q);
    if (prefix.length < 2) throw new HubError('bad_request', 'q: at least 2 letters or digits');
    const why = await statedPurpose(deps, query);
    const suggestions = await autocompletePlates(deps.db, prefix, query.limit, await requestScope(deps.db, c));
    await audit(c, 'search.autocomplete', why, { query: { q: query.q }, result_count: suggestions.length });
    return c.json({ suggestions });
  });
  return app;
}
