import { Hono } from 'hono';
import { decideMetricsAccess } from '@alpr/shared/metrics/access';
import type { HubDeps } from '../hub-deps.ts';
import { HubError } from '../platform/errors.ts';
import { clientIp } from '../platform/http/client-ip.ts';
import type { HubMetrics } from '../platform/hub-metrics.ts';
import { registerScrapeGauges } from './scrape-gauges.ts';

/**
 * `GET /metrics` (docs/metrics.md): Prometheus text format, for loopback clients or a
 * bearer token (HUB_METRICS_TOKEN). Not behind the dashboard session: a scraper has none.
 */
export function metricsRoutes(deps: Pick<HubDeps, 'db' | 'load' | 'config' | 'log'>, metrics: HubMetrics): Hono {
  registerScrapeGauges(metrics, deps);
  const app = new Hono();
  app.get('/metrics', async (c) => {
    const access = decideMetricsAccess({ clientAddress: clientIp(c), authorization: c.req.header('authorization'), token: deps.config.metricsToken });
    if (access === 'unauthorized') {
      throw new HubError('unauthorized', 'metrics need Authorization: Bearer <HUB_METRICS_TOKEN>', { 'WWW-Authenticate': 'Bearer realm="metrics"' });
    }
    if (access === 'forbidden') throw new HubError('forbidden', 'metrics are served to loopback clients only (set HUB_METRICS_TOKEN to scrape from elsewhere)');
    const text = await metrics.registry.metrics();
    return c.body(text, 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  });
  return app;
}
