import { EVENTS_SEARCH_PATH, INGEST_ROUTE, SEARCH_PATH } from '../platform/http/paths.ts';
import type { Hono, MiddlewareHandler } from 'hono';
import { BATCH_PATHS } from '@alpr/shared/protocol/paths';
import { ingestResult, type HubMetrics } from '../platform/hub-metrics.ts';

/**
 * Times uploads and searches at the app's edge (docs/metrics.md), so the domains' routes stay
 * as they are: a middleware on the paths, measuring request to answer (an error answer is mapped by app.onError before the
 * middleware sees `c.res`, so uploads count refusals by status).
 */
export function timedRoutes(app: Hono, metrics: HubMetrics): void {
  const upload =
    (source: 'batch' | 'webhook'): MiddlewareHandler =>
    async (c, next) => {
      if (c.req.method !== 'POST') return next();
      const end = metrics.ingestSeconds.startTimer({ source });
      try {
        await next();
      } finally {
        end();
        metrics.ingestRequests.inc({ source, result: ingestResult(c.res.status) });
      }
    };
  for (const path of BATCH_PATHS) app.use(path, upload('batch'));
  app.use(INGEST_ROUTE, upload('webhook'));

  const search =
    (route: string): MiddlewareHandler =>
    async (c, next) => {
      if (c.req.method !== 'GET') return next();
      const started = performance.now();
      await next();
      // Answered searches only: a refusal (401, 429) takes microseconds and would make a
      // slow database look fast.
      if (c.res.status < 400) metrics.searchSeconds.observe({ route }, (performance.now() - started) / 1000);
    };
  app.use(SEARCH_PATH, search('search'));
  app.use(EVENTS_SEARCH_PATH, search('events_search'));
}
