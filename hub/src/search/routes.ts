import { Hono, type Context } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { writeAudit } from '../audit/write.ts';
import type { AuthContext } from '../auth/context.ts';
import { authKeys } from '../auth/hub-secret.ts';
import { requestMeta } from '../auth/request.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { HubError } from '../errors.ts';
import { signImageLink } from '../images/signed-link.ts';
import { pathParam } from '../http/json-body.ts';
import { autocompletePlates, detectionDetail } from './detail.ts';
import { parseSearchParams, reasonSchema } from './params.ts';
import { searchDetections } from './search.ts';
import { investigationRoutes } from './investigation-routes.ts';

/**
 * Detection search, one detection, and plate autocomplete (spec "Detection queries";
 * docs/search.md). Every call names its reason and is audited with who, when, the query
 * and the result count: looking people up is what the audit exists for.
 */
export function searchRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const user = requireUser(deps);
  const eventsLimit = every(user, rateLimit(deps, RATE_LIMITS.events));
  const searchLimit = every(user, rateLimit(deps, RATE_LIMITS.search));
  const signer = () => ({ key: authKeys(deps.config).imageLinkKey, baseUrl: deps.config.publicUrl, now: deps.clock.now() });

  const audit = async (c: Context<AuthEnv>, action: string, detail: Record<string, unknown>, targetId: string | null = null): Promise<void> => {
    const meta = requestMeta(c);
    await writeAudit(deps.db, {
      at: deps.clock.now(), action, actor: { userId: c.get('user').id }, targetType: targetId ? 'detection' : null, targetId, ip: meta.ip, userAgent: meta.userAgent, detail,
    });
  };
  const queryOf = (c: Context): Record<string, string> => {
    const q: Record<string, string> = {};
    for (const [k, v] of new URL(c.req.url).searchParams) if (k !== 'reason') q[k] = q[k] ? `${q[k]},${v}` : v;
    return q;
  };

  const search = async (c: Context<AuthEnv>) => {
    const parsed = parseSearchParams(new URL(c.req.url).searchParams);
    if (!parsed.ok) throw new HubError('bad_request', `${parsed.field}: ${parsed.message}`);
    const q = parsed.query;
    const page = await searchDetections(deps.db, q);
    const s = signer();
    const link = (hash: string | null): string | null => (hash ? signImageLink(s.key, s.baseUrl, hash.trim(), s.now) : null);
    await audit(c, 'search.detections', { reason: q.reason, query: queryOf(c), result_count: page.total, total_is_lower_bound: page.capped });
    return c.json({
      data: page.rows.map((r) => ({
        id: r.id,
        plate_number: r.plate_number,
        captured_at: new Date(r.captured_at).toISOString(),
        confidence: Number(r.confidence),
        direction: r.direction,
        collector: { id: r.collector_id, name: r.site_name },
        images: { full_url: link(r.full_image_hash), crop_url: link(r.crop_image_hash) },
        ...(r.similarity !== undefined ? { similarity: Number(Number(r.similarity).toFixed(3)) } : {}),
      })),
      meta: { page: q.page, per_page: q.perPage, total: page.total, total_pages: Math.ceil(page.total / q.perPage), total_is_lower_bound: page.capped },
    });
  };
  app.get('/api/v1/events/search', eventsLimit, search);
  // The spec's rate limit names `GET /api/v1/search` (60 a minute): the same search.
  app.get('/api/v1/search', searchLimit, search);

  app.get('/api/v1/detections/:id', eventsLimit, async (c) => {
    const reason = reasonSchema.safeParse(c.req.query('reason'));
    if (!reason.success) throw new HubError('bad_request', `reason: ${reason.error.issues[0]?.message}`);
    const id = pathParam(c, 'id');
    const detail = await detectionDetail(deps.db, id, signer());
    await audit(c, 'search.detection_view', { reason: reason.data, result_count: 1 }, id);
    return c.json(detail);
  });

  const autocompleteSchema = z.object({ q: z.string().min(1).max(20), limit: z.coerce.number().int().min(1).max(50).default(10), reason: reasonSchema }).strict();
  app.get('/api/v1/plates/autocomplete', searchLimit, async (c) => {
    const parsed = autocompleteSchema.safeParse(c.req.query());
    if (!parsed.success) throw new HubError('bad_request', `${parsed.error.issues[0]?.path.join('.') || '(query)'}: ${parsed.error.issues[0]?.message}`);
    const prefix = ocrNormalize(parsed.data.q);
    if (prefix.length < 2) throw new HubError('bad_request', 'q: at least 2 letters or digits');
    const suggestions = await autocompletePlates(deps.db, prefix, parsed.data.limit);
    await audit(c, 'search.autocomplete', { reason: parsed.data.reason, query: { q: parsed.data.q }, result_count: suggestions.length });
    return c.json({ suggestions });
  });
  app.route('/', investigationRoutes(deps));
  return app;
}
