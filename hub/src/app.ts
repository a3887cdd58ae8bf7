import { Hono } from 'hono';
import type { HubDeps } from './deps.ts';
import { errorHandler } from './http/on-error.ts';
import { collectorRoutes } from './collectors/routes.ts';
import { ingestRoutes } from './ingest/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { adminRoutes } from './admin/routes.ts';

/** The hub's HTTP app: each domain mounts its own routes; one error mapping for all. */
export function createHubApp(deps: HubDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.log));
  app.notFound((c) => c.json({ error: { code: 'not_found', message: 'no such route' } }, 404));
  app.get('/healthz', (c) => c.json({ ok: true, database: deps.db.kind }));
  app.route('/', collectorRoutes(deps));
  app.route('/', ingestRoutes(deps));
  app.route('/', authRoutes(deps));
  app.route('/', adminRoutes(deps));
  return app;
}
