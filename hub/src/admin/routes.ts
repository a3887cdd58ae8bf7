import { Hono } from 'hono';
import type { AuthEnv } from '../auth/middleware.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import { adminCollectorRoutes } from './collector-routes.ts';
import { adminGuards } from './guards.ts';
import { adminKeyRoutes } from './key-routes.ts';
import { adminUserRoutes } from './user-routes.ts';
import { adminAuditRoutes } from './audit-routes.ts';
import { adminCameraRoutes } from './camera-routes.ts';
import { adminAlertCheckRoutes } from './alert-check-routes.ts';
import { adminCollectorStateRoutes } from './collector-state-routes.ts';
import { adminHubCertificateRoutes } from './hub-certificate-routes.ts';
import { healthAlertRoutes } from '../health/routes.ts';
import { auditReviewRoutes } from '../audit-review/routes.ts';
import { adminWebhookRoutes } from '../webhooks/routes.ts';

/**
 * Admin HTTP API for collectors and their keys (docs/admin-api.md). Thin: each route
 * checks the session (admin only, docs/auth.md), validates JSON, calls
 * one verb from `collectors/`, and writes an audit row. Errors are HubErrors mapped by
 * the app's one error handler (404 unknown collector/key, 409 wrong state).
 */
export function adminRoutes(deps: PlatformDeps): Hono<AuthEnv> {
  const guards = adminGuards(deps);
  const app = new Hono<AuthEnv>();
  app.route('/', adminCollectorRoutes(deps, guards));
  app.route('/', adminCollectorStateRoutes(deps, guards));
  app.route('/', adminCameraRoutes(deps, guards));
  app.route('/', adminAlertCheckRoutes(deps, guards));
  app.route('/', adminKeyRoutes(deps, guards));
  app.route('/', adminUserRoutes(deps, guards));
  app.route('/', adminAuditRoutes(deps, guards));
  app.route('/', adminHubCertificateRoutes(deps, guards));
  app.route('/', healthAlertRoutes(deps, guards));
  app.route('/', auditReviewRoutes(deps, guards));
  app.route('/', adminWebhookRoutes(deps, guards));
  return app;
}
