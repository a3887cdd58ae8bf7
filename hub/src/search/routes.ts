import { Hono, type Context } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import type { AuthContext } from '../auth/context.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { HubError } from '../errors.ts';
import { linkSigner } from '../images/link-signer.ts';
import { idParam, validQuery } from '../http/validator.ts';
import { autocompletePlates, detectionDetail } from './detail.ts';
import { parseSearchParams, reasonSchema } from './params.ts';
import { presentSearchPage } from './present.ts';
import { searchDetections } from './search.ts';
import { auditLookup, queryWithoutReason } from './lookup-audit.ts';
import { investigationRoutes } from './investigation-routes.ts';

/**
 * Detection search, one detection, and plate autocomplete (docs/search.md;
 * docs/search.md). Every call names its reason and is audited with who, when, the query
 * and the result count: looking people up is what the audit exists for.
 */
export function searchRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const user = requireUser(deps);
  const eventsLimit = every(user, rateLimit(deps, RATE_LIMITS.events));
  const searchLimit = every(user, rateLimit(deps, RATE_LIMITS.search));

  const audit = (c: Context<AuthEnv>, action: string, detail: Record<string, unknown>, detectionId: string | null = null) =>
    auditLookup(deps, c, action, detail, detectionId);

  const search = async (c: Context<AuthEnv>) => {
    const parsed = parseSearchParams(new URL(c.req.url).searchParams);
    if (!parsed.ok) throw new HubError('bad_request', `${parsed.field}: ${parsed.message}`);
    const q = parsed.query;
    const page = await searchDetections(deps.db, q);
    const signer = linkSigner(deps.config, deps.clock.now());
    await audit(c, 'search.detections', { reason: q.reason, query: queryWithoutReason(c), result_count: page.total, total_is_lower_bound: page.capped });
    return c.json(presentSearchPage(page, q, signer));
  };
  app.get('/api/v1/events/search', eventsLimit, search);
  // The rate-limit table names `GET /api/v1/search` (60 a minute): the same search.
  app.get('/api/v1/search', searchLimit, search);

  app.get('/api/v1/detections/:id', eventsLimit, idParam, async (c) => {
    const reason = reasonSchema.safeParse(c.req.query('reason'));
    if (!reason.success) throw new HubError('bad_request', `reason: ${reason.error.issues[0]?.message}`);
    const { id } = c.req.valid('param');
    const detail = await detectionDetail(deps.db, id, linkSigner(deps.config, deps.clock.now()));
    await audit(c, 'search.detection_view', { reason: reason.data, result_count: 1 }, id);
    return c.json(detail);
  });

  const autocompleteSchema = z
    .object({ q: z.string().min(1).max(20), limit: z.coerce.number().int().min(1).max(50).default(10), reason: reasonSchema })
    .strict();
  app.get('/api/v1/plates/autocomplete', searchLimit, validQuery(autocompleteSchema), async (c) => {
    const query = c.req.valid('query');
    const prefix = ocrNormalize(query.q);
    if (prefix.length < 2) throw new HubError('bad_request', 'q: at least 2 letters or digits');
    const suggestions = await autocompletePlates(deps.db, prefix, query.limit);
    await audit(c, 'search.autocomplete', { reason: query.reason, query: { q: query.q }, result_count: suggestions.length });
    return c.json({ suggestions });
  });
  app.route('/', investigationRoutes(deps));
  return app;
}
