import { Hono } from 'hono';
import { errorEnvelope } from '@alpr/shared/http/error-envelope';
import { bodyEdge, errorHandler, type EdgeLog } from './edge.ts';

/**
 * Port 8080's HTTP app: the edge (body checks, one error mapping) in front of every route
 * the parts mount (camera pushes, setup page, diagnostics). main.ts passes the parts; the
 * hostile-input sweep (test/sweep) builds the same app, so every route is swept.
 */
export function createApplianceHttpApp(log: EdgeLog, parts: readonly Hono[]): Hono {
  const app = new Hono();
  app.onError(errorHandler(log));
  app.notFound((c) => c.json(errorEnvelope('not_found', 'no such route'), 404));
  app.use('*', bodyEdge(log));
  for (const part of parts) app.route('/', part);
  return app;
}
