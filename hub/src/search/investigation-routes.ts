import { investigationPath } from '../platform/http/paths.ts';
import { calendarDay, isoTimeAsDate } from '@alpr/shared/validation/params';
import { Hono, type Context } from 'hono';
import { every } from 'hono/combine';
import { z } from 'zod';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { isValidTimeZone, zoneOffsetMs } from '@alpr/shared/detection/time';
import type { AuthContext } from '../auth/context.ts';
import { requireUser, type AuthEnv } from '../auth/middleware.ts';
import { RATE_LIMITS, rateLimit } from '../auth/rate-limit.ts';
import { HubError } from '../platform/errors.ts';
import { validQuery } from '../platform/http/validator.ts';
import { convoy, locationActivity, plateHistory, plateRoute, type Range } from './investigations.ts';
import { auditLookup, lookupQuery, statedPurpose } from './lookup-audit.ts';
import { lookupPurposeFields } from '../audit/purposes/schema.ts';
import type { LookupPurpose } from '../audit/purposes/check.ts';
import { requestScope } from '../sites/request-scope.ts';
import type { SiteScope } from '../sites/scope.ts';

const DEFAULT_DAYS = 90;
const MAX_DAYS = 366;

const datetime = isoTimeAsDate;
const plateParam = z
  .string()
  .max(40)
  .transform(ocrNormalize)
  .refine((p) => p.length > 0, 'no letters or digits');
const rangeFields = { start_date: datetime.optional(), end_date: datetime.optional() };

/** Default: the last 90 days; at most a year (the indexes make longer ones slow, not wrong). */
function rangeOf(q: { start_date?: Date | undefined; end_date?: Date | undefined }, now: Date): Range {
  const end = q.end_date ?? now;
  const start = q.start_date ?? new Date(end.getTime() - DEFAULT_DAYS * 86_400_000);
  if (start > end) throw new HubError('bad_request', 'end_date: is before start_date');
  if (end.getTime() - start.getTime() > MAX_DAYS * 86_400_000) throw new HubError('bad_request', `end_date: at most ${MAX_DAYS} days after start_date`);
  return { start, end };
}

/**
 * Investigations (docs/search.md "Investigations"). Any signed-in user, with a purpose,
 * audited like searches (`search.investigation` with its kind), 120 a minute per user.
 */
export function investigationRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const guard = every(requireUser(deps), rateLimit(deps, RATE_LIMITS.events));
  /** The purpose is checked before the query runs: a refused one reads nothing. */
  const lookup = async <T>(
    c: Context<AuthEnv>,
    kind: string,
    given: LookupPurpose,
    run: (scope: SiteScope) => Promise<T>,
    count: (r: T) => number,
  ): Promise<T> => {
    const why = await statedPurpose(deps, given);
    const result = await run(await requestScope(deps.db, c));
    await auditLookup(deps, c, 'search.investigation', why, { kind, query: lookupQuery(c), result_count: count(result) });
    return result;
  };

  const plateSchema = z.object({ plate: plateParam, ...rangeFields, ...lookupPurposeFields }).strict();
  app.get(investigationPath('plate-history'), guard, validQuery(plateSchema), async (c) => {
    const q = c.req.valid('query');
    const range = rangeOf(q, deps.clock.now());
    const result = await lookup(
      c,
      'plate_history',
      q,
      (scope) => plateHistory(deps.db, q.plate, range, scope),
      (r) => r.sightings.length,
    );
    return c.json(result);
  });
  app.get(investigationPath('route'), guard, validQuery(plateSchema), async (c) => {
    const q = c.req.valid('query');
    const range = rangeOf(q, deps.clock.now());
    const result = await lookup(
      c,
      'route',
      q,
      (scope) => plateRoute(deps.db, q.plate, range, scope),
      (r) => r.stops.length,
    );
    return c.json(result);
  });

  const convoySchema = z
    .object({
      plate: plateParam,
      ...rangeFields,
      window_minutes: z.coerce.number().int().min(1).max(60).default(5),
      min_occasions: z.coerce.number().int().min(1).max(100).default(3),
      ...lookupPurposeFields,
    })
    .strict();
  app.get(investigationPath('convoy'), guard, validQuery(convoySchema), async (c) => {
    const q = c.req.valid('query');
    const range = rangeOf(q, deps.clock.now());
    const result = await lookup(
      c,
      'convoy',
      q,
      (scope) => convoy(deps.db, q.plate, range, q.window_minutes, q.min_occasions, scope),
      (r) => r.companions.length,
    );
    return c.json(result);
  });

  const activitySchema = z
    .object({
      collector_id: z.string().uuid('must be a collector id (uuid)'),
      date: calendarDay,
      timezone: z.string().max(64).refine(isValidTimeZone, 'not an IANA time zone').default('UTC'),
      ...lookupPurposeFields,
    })
    .strict();
  app.get(investigationPath('location-activity'), guard, validQuery(activitySchema), async (c) => {
    const q = c.req.valid('query');
    const midnightUtc = Date.parse(`${q.date}T00:00:00Z`);
    if (Number.isNaN(midnightUtc)) throw new HubError('bad_request', 'date: not a calendar day');
    // Midnight on that day in the zone (its offset at that moment).
    const dayStart = new Date(midnightUtc - zoneOffsetMs(q.timezone, midnightUtc));
    const result = await lookup(
      c,
      'location_activity',
      q,
      (scope) => locationActivity(deps.db, q.collector_id, dayStart, q.timezone, scope),
      (r) => r.plates.length,
    );
    return c.json(result);
  });
  return app;
}
