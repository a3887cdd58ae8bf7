import { INGEST_PREFIX, isWatchlistImportPath } from './platform/http/paths.ts';
import { heardRetroHunt } from './hearers.ts';
import { Hono } from 'hono';
import type { HubDeps } from './hub-deps.ts';
import { csrfForSessions } from './auth/csrf.ts';
import { bodyEdge } from './platform/http/body-edge.ts';
import { errorHandler, hubErrorResponse } from './platform/http/on-error.ts';
import { HubError } from './platform/errors.ts';
import { queryEdge } from './platform/http/query-edge.ts';
import { clientAddressEdge } from './platform/http/client-ip.ts';
import { parseTrustedProxies } from './platform/http/client-address.ts';
import { collectorRoutes } from './collectors/routes.ts';
import { ingestRoutes } from './ingest/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { adminAlertCheckRoutes } from './admin/alert-check-routes.ts';
import { adminCameraRoutes } from './admin/camera-routes.ts';
import { adminCollectorRoutes } from './admin/collector-routes.ts';
import { adminCollectorStateRoutes } from './admin/collector-state-routes.ts';
import { adminHubCertificateRoutes } from './admin/hub-certificate-routes.ts';
import { adminKeyRoutes } from './admin/key-routes.ts';
import { adminUserRoutes } from './admin/user-routes.ts';
import { adminSiteRoutes } from './admin/site-routes.ts';
import { adminPurposeRoutes, purposeRoutes } from './audit/purposes/routes.ts';
import { auditReviewRoutes } from './audit/review/routes.ts';
import { adminAuditRoutes } from './audit/routes.ts';
import { adminGuards, type AdminGuards } from './auth/guards.ts';
import type { AdminEnv } from './audit/middleware.ts';
import { healthAlertRoutes } from './health/routes.ts';
import { createSearchKeysHealth } from './health/search-keys.ts';
import { investigationRoutes } from './search/investigation-routes.ts';
import { feedRoutes } from './watchlists/feeds/routes.ts';
import { adminWebhookRoutes } from './webhooks/routes.ts';
import { watchlistRoutes } from './watchlists/routes.ts';
import { BATCH_PATHS } from '@alpr/shared/protocol/paths';
import { alertRoutes } from './alerts/routes.ts';
import { imageRoutes } from './images/routes.ts';
import { searchRoutes } from './search/routes.ts';
import { legalHoldRoutes } from './legal-holds/routes.ts';
import { evidenceRoutes } from './evidence/routes.ts';
import { uiRoutes } from './ui/routes.tsx';
import { messagingRoutes } from './messaging/routes.ts';
import { createHubMetrics } from './platform/hub-metrics.ts';
import { timedRoutes } from './metrics/timing.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { transparencyRoutes } from './transparency/routes.tsx';

/**
 * Largest body an edge-checked route takes: an admin collector configuration (256 KB,
 * auth/guards.ts). Auth and collector routes keep their smaller caps (16 KB, 64 KB).
 */
export const EDGE_MAX_BODY_BYTES = 256 * 1024;

/**
 * Camera webhooks, batch uploads and the watchlist CSV import read their own streams under
 * their own caps (2 MB, 12 MB, 2 MB) and parse their own formats (camera pushes leniently:
 * multipart with JPEGs, vendor XML/JSON, with the adapters' own depth and item limits; the
 * CSV strictly, per line): the body edge leaves them alone.
 */
export function isRawBodyPath(path: string): boolean {
  return path.startsWith(INGEST_PREFIX) || (BATCH_PATHS as readonly string[]).includes(path) || isWatchlistImportPath(path);
}

/** The administration routers, in mounting order: each takes the one set of admin guards (auth/guards.ts). */
const ADMIN_ROUTERS: readonly ((deps: HubDeps, guards: AdminGuards) => Hono<AdminEnv>)[] = [
  adminCollectorRoutes,
  adminCollectorStateRoutes,
  adminCameraRoutes,
  adminAlertCheckRoutes,
  adminKeyRoutes,
  adminUserRoutes,
  adminSiteRoutes,
  adminHubCertificateRoutes,
  adminAuditRoutes,
  adminPurposeRoutes,
  auditReviewRoutes,
  healthAlertRoutes,
  adminWebhookRoutes,
];

/** The hub's HTTP app: one routing table (below) and one error mapping for all. */
export function createHubApp(deps: HubDeps): Hono {
  // Set on the caller's deps, not a copy: main.ts (live connections) and tests read it there.
  const metrics = (deps.metrics ??= createHubMetrics());
  const app = new Hono();
  app.onError(errorHandler(deps.log));
  app.notFound((c) => hubErrorResponse(c, new HubError('not_found', 'no such route')));
  // One edge for every route, present and future: who is asking (trusted proxies honoured),
  // query strings and bodies checked once, CSRF for sessions.
  app.use('*', clientAddressEdge(parseTrustedProxies(deps.config.trustedProxies)));
  app.use('*', queryEdge());
  app.use('*', bodyEdge({ log: deps.log, maxBytes: EDGE_MAX_BODY_BYTES, rawBody: isRawBodyPath }));
  app.use('*', csrfForSessions());
  // Before the routes it times: Hono runs handlers in the order they were added.
  timedRoutes(app, metrics);
  // The search keys' lag (docs/health.md "Search keys"): read at most every 5 s.
  const searchKeys = createSearchKeysHealth(deps.db, deps.clock);
  app.get('/healthz', async (c) => c.json({ ok: true, database: deps.db.kind, search_keys: await searchKeys() }));
  // The routing table: every domain's router, mounted here and nowhere else.
  const guards = adminGuards(deps);
  app.route('/', metricsRoutes(deps, metrics));
  app.route('/', collectorRoutes(deps));
  app.route('/', ingestRoutes(deps));
  app.route('/', authRoutes(deps));
  for (const routes of ADMIN_ROUTERS) app.route('/', routes(deps, guards));
  // Historical hits of a plate added by hand are heard like every other alert (hearers.ts).
  app.route('/', watchlistRoutes(deps, { hunt: heardRetroHunt(deps.config) }));
  app.route('/', feedRoutes(deps));
  app.route('/', alertRoutes(deps));
  app.route('/', imageRoutes(deps));
  app.route('/', searchRoutes(deps));
  app.route('/', investigationRoutes(deps));
  app.route('/', purposeRoutes(deps));
  app.route('/', legalHoldRoutes(deps));
  app.route('/', evidenceRoutes(deps));
  app.route('/', messagingRoutes(deps));
  app.route('/', transparencyRoutes(deps));
  app.route('/', uiRoutes(deps));
  return app;
}
