/**
 * Every public path of the hub's own API (dashboard, admin, scripts), written once, as
 * shared/src/protocol/paths.ts writes the collector wire protocol: the routers register the
 * Hono patterns (`…_ROUTE`, with `:id`), and the dashboard's client scripts (ui/client/,
 * bundled for the browser: this module imports nothing), the metrics labels and the tests
 * build URLs with the constants and functions. An id is percent-encoded into its segment.
 * `npm run lint:deps` (scripts/test/no-api-paths.mjs) refuses an `/api/v1` literal elsewhere.
 */

const API = '/api/v1';
const seg = (value: string): string => encodeURIComponent(value);

// Detections and search
export const SEARCH_PATH = `${API}/search`;
/** The `events` name for the same search (docs/search.md: events paths are aliases of detections). */
export const EVENTS_SEARCH_PATH = `${API}/events/search`;
export const DETECTION_ROUTE = `${API}/detections/:id`;
export const detectionPath = (id: string): string => `${API}/detections/${seg(id)}`;
export const PLATE_AUTOCOMPLETE_PATH = `${API}/plates/autocomplete`;
export const INVESTIGATIONS_PATH = `${API}/investigations`;
export const INVESTIGATION_KINDS = ['plate-history', 'route', 'convoy', 'location-activity'] as const;
export type InvestigationKind = (typeof INVESTIGATION_KINDS)[number];
export const investigationPath = (kind: InvestigationKind): string => `${INVESTIGATIONS_PATH}/${kind}`;
export const EXPORT_DETECTIONS_PATH = `${API}/export/detections`;
/** Camera webhooks: `/api/v1/ingest/<vendor>`. */
export const INGEST_PREFIX = `${API}/ingest/`;
export const INGEST_ROUTE = `${INGEST_PREFIX}:vendor`;
export const ingestPath = (vendor: string): string => `${INGEST_PREFIX}${seg(vendor)}`;
/** Signed image links (platform/signed-links): `/api/v1/images/<sha256>?exp=…&sig=…`. */
export const IMAGE_PATH_PREFIX = `${API}/images/`;
export const PURPOSES_PATH = `${API}/purposes`;
export const LEGAL_HOLDS_PATH = `${API}/legal-holds`;
export const LEGAL_HOLDS_RELEASE_PATH = `${LEGAL_HOLDS_PATH}/release`;

// Alerts
export const ALERTS_PATH = `${API}/alerts`;
export const ALERT_ROUTE = `${ALERTS_PATH}/:id`;
export const alertPath = (id: string): string => `${ALERTS_PATH}/${seg(id)}`;
export type AlertAction = 'acknowledge' | 'dismiss' | 'verify';
export const alertActionRoute = (action: AlertAction): string => `${ALERT_ROUTE}/${action}`;
export const alertActionPath = (id: string, action: AlertAction): string => `${alertPath(id)}/${action}`;

// Watchlists
export const WATCHLISTS_PATH = `${API}/watchlist`;
export const WATCHLIST_ROUTE = `${WATCHLISTS_PATH}/:id`;
export const watchlistPath = (id: string): string => `${WATCHLISTS_PATH}/${seg(id)}`;
export type WatchlistPart = 'entries' | 'import' | 'export' | 'subscription' | 'feed' | 'feed/update' | 'recipients';
export const watchlistPartRoute = (part: WatchlistPart): string => `${WATCHLIST_ROUTE}/${part}`;
export const watchlistPartPath = (id: string, part: WatchlistPart): string => `${watchlistPath(id)}/${part}`;
export const WATCHLIST_ENTRY_ROUTE = `${WATCHLIST_ROUTE}/entries/:entryId`;
export const watchlistEntryPath = (id: string, entryId: string): string => `${watchlistPartPath(id, 'entries')}/${seg(entryId)}`;
/** The CSV import reads its own body (text/csv, over the JSON edge's cap): app.ts skips the edge for it. */
export const isWatchlistImportPath = (path: string): boolean =>
  path.startsWith(`${WATCHLISTS_PATH}/`) && /^[^/]+\/import$/.test(path.slice(WATCHLISTS_PATH.length + 1));
export const SUBSCRIPTIONS_PATH = `${API}/subscriptions`;

// Notifications and the messaging bot
export const NOTIFICATION_PREFERENCES_PATH = `${API}/notifications/preferences`;
export const TELEGRAM_LINK_PATH = `${API}/telegram/link`;
export const TELEGRAM_LINK_CODE_PATH = `${API}/telegram/link-code`;
export const TELEGRAM_UNLINK_PATH = `${API}/telegram/unlink`;
export const TELEGRAM_MUTE_PATH = `${API}/telegram/mute`;
export const TELEGRAM_WEBHOOK_PATH = `${API}/telegram/webhook`;

// Administration
const ADMIN = `${API}/admin`;
export const ADMIN_COLLECTORS_PATH = `${ADMIN}/collectors`;
export const ADMIN_COLLECTOR_ROUTE = `${ADMIN_COLLECTORS_PATH}/:id`;
export const adminCollectorPath = (id: string): string => `${ADMIN_COLLECTORS_PATH}/${seg(id)}`;
export type CollectorPart =
  | 'commands'
  | 'provisioning-tokens'
  | 'claim-code'
  | 'config'
  | 'decommission'
  | 'wipe'
  | 'suspend'
  | 'resume'
  | 'replace'
  | 'replace/cancel'
  | 'keys'
  | 'rotate-key'
  | 'cameras'
  | 'site';
export const adminCollectorPartRoute = (part: CollectorPart): string => `${ADMIN_COLLECTOR_ROUTE}/${part}`;
export const adminCollectorPartPath = (id: string, part: CollectorPart): string => `${adminCollectorPath(id)}/${part}`;
/** The same rotation under the collector's own path, beside the admin one (admin/key-routes.ts). */
export const COLLECTOR_ROTATE_KEY_ROUTE = `${API}/collectors/:id/rotate-key`;
export const collectorRotateKeyPath = (id: string): string => `${API}/collectors/${seg(id)}/rotate-key`;
export const ADMIN_CAMERA_ROUTE = `${adminCollectorPartRoute('cameras')}/:cameraId`;
export const adminCameraPath = (collectorId: string, cameraId: string): string => `${adminCollectorPartPath(collectorId, 'cameras')}/${seg(cameraId)}`;
export const ADMIN_KEY_ROUTE = `${ADMIN}/keys/:keyId`;
export const adminKeyPath = (keyId: string): string => `${ADMIN}/keys/${seg(keyId)}`;
export const adminKeyActionRoute = (action: 'revoke' | 'deactivate'): string => `${ADMIN_KEY_ROUTE}/${action}`;
export const adminKeyActionPath = (keyId: string, action: 'revoke' | 'deactivate'): string => `${adminKeyPath(keyId)}/${action}`;

export const ADMIN_USERS_PATH = `${ADMIN}/users`;
export const ADMIN_USER_ROUTE = `${ADMIN_USERS_PATH}/:id`;
export const adminUserPath = (id: string): string => `${ADMIN_USERS_PATH}/${seg(id)}`;
export type UserAction = 'role' | 'activate' | 'deactivate' | 'reset-2fa' | 'reset-password' | 'end-sessions' | 'sites';
export const adminUserActionRoute = (action: UserAction): string => `${ADMIN_USER_ROUTE}/${action}`;
export const adminUserActionPath = (id: string, action: UserAction): string => `${adminUserPath(id)}/${action}`;

// Sites and site groups (docs/sites.md)
export const ADMIN_SITES_PATH = `${ADMIN}/sites`;
export const ADMIN_SITE_ROUTE = `${ADMIN_SITES_PATH}/:id`;
export const adminSitePath = (id: string): string => `${ADMIN_SITES_PATH}/${seg(id)}`;
export const ADMIN_SITE_GROUPS_PATH = `${ADMIN}/site-groups`;
export const ADMIN_SITE_GROUP_ROUTE = `${ADMIN_SITE_GROUPS_PATH}/:id`;
export const adminSiteGroupPath = (id: string): string => `${ADMIN_SITE_GROUPS_PATH}/${seg(id)}`;

export const ADMIN_AUDIT_PATH = `${ADMIN}/audit`;
export const ADMIN_AUDIT_REVIEW_PATH = `${ADMIN}/audit-review`;
export const ADMIN_PURPOSES_PATH = `${ADMIN}/purposes`;
export const ADMIN_PURPOSE_ROUTE = `${ADMIN_PURPOSES_PATH}/:code`;
export type PurposeAction = 'retire' | 'reactivate';
export const adminPurposeActionRoute = (action: PurposeAction): string => `${ADMIN_PURPOSE_ROUTE}/${action}`;
export const adminPurposeActionPath = (code: string, action: PurposeAction): string => `${ADMIN_PURPOSES_PATH}/${seg(code)}/${action}`;
export const ADMIN_HEALTH_ALERTS_PATH = `${ADMIN}/health-alerts`;
export const ADMIN_HUB_CERTIFICATE_PATH = `${ADMIN}/hub-certificate`;
export const ADMIN_HUB_CERTIFICATE_ANNOUNCE_PATH = `${ADMIN_HUB_CERTIFICATE_PATH}/announce`;
export const ADMIN_ALERT_CHECKS_PATH = `${ADMIN}/alert-checks`;
export const ADMIN_ALERT_CHECKS_FAILED_PATH = `${ADMIN_ALERT_CHECKS_PATH}/failed`;
export const ADMIN_ALERT_CHECKS_REQUEUE_FAILED_PATH = `${ADMIN_ALERT_CHECKS_PATH}/requeue-failed`;
export const ADMIN_ALERT_CHECK_REQUEUE_ROUTE = `${ADMIN_ALERT_CHECKS_PATH}/:id/requeue`;
export const adminAlertCheckRequeuePath = (id: string): string => `${ADMIN_ALERT_CHECKS_PATH}/${seg(id)}/requeue`;
export const ADMIN_WEBHOOKS_PATH = `${ADMIN}/webhooks`;
export const ADMIN_WEBHOOK_ROUTE = `${ADMIN_WEBHOOKS_PATH}/:id`;
export const adminWebhookPath = (id: string): string => `${ADMIN_WEBHOOKS_PATH}/${seg(id)}`;
export const adminWebhookActionRoute = (action: 'test' | 'rotate-secret'): string => `${ADMIN_WEBHOOK_ROUTE}/${action}`;
export const adminWebhookActionPath = (id: string, action: 'test' | 'rotate-secret'): string => `${adminWebhookPath(id)}/${action}`;
