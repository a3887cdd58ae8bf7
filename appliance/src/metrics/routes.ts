import { Hono } from 'hono';
import { decideMetricsAccess } from '@alpr/shared/metrics/access';
import { ApplianceError } from '../errors.ts';
import type { AddressOf } from '../http/request-guards.ts';
import type { ApplianceMetrics } from './appliance-metrics.ts';

/**
 * `GET /metrics` on port 8080 (docs/metrics.md): Prometheus text format for a loopback client
 * (a node exporter or agent on the box) or anyone with `Authorization: Bearer <metrics.token>`.
 * The rest of the LAN is refused: the figures name cameras and show the uplink's state.
 */
export function applianceMetricsRoutes(metrics: ApplianceMetrics, addressOf: AddressOf, token: () => string | undefined): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    const access = decideMetricsAccess({ clientAddress: addressOf(c) ?? null, authorization: c.req.header('authorization'), token: token() });
    if (access === 'unauthorized') {
      throw new ApplianceError('unauthorized', 'metrics need Authorization: Bearer <metrics.token>', {
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
    }
    if (access === 'forbidden')
      throw new ApplianceError('forbidden', 'metrics are served to loopback clients only (set metrics.token to scrape from elsewhere)');
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  });
  return app;
}
