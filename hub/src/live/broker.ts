/**
 * The live channel of one hub process (docs/live.md): its connections, and the fan-out of
 * alerts, detections and collector status to them. Several hub processes on one database
 * each LISTEN and each deliver to their own clients, so every client gets every event once;
 * an event's rows are fetched and serialized once per process, not once per client.
 */
import { isBigintId } from '@alpr/shared/validation/params';
import type { WebSocket } from 'ws';
import type { AuthContext } from '../auth/context.ts';
import { linkSigner } from '../platform/signed-links/link-signer.ts';
import type { SessionUser } from '../auth/middleware.ts';
import { AuthFailure } from '../auth/failure.ts';
import { authenticateSession } from '../auth/middleware.ts';
import { alertPayload, alertRowsById, verificationRecord, type AlertRow } from '../alerts/payload.ts';
import { ALERT_CHANNEL, ALERT_VERIFIED_CHANNEL, DETECTIONS_CHANNEL } from '../db/channels.ts';
import type { Unlisten } from '../db/client.ts';
import type { Listen } from '../db/listen.ts';
import { connectivity } from '../collectors/heartbeat-interval.ts';
import { collectorsForPresence, presenceChanges, type CollectorSnapshot, type Presence } from './collector-status.ts';
import { isSubscribed, subscribersOf } from '../watchlists/subscriptions.ts';
import { healthAlertsById } from '../health/present.ts';
import { HEALTH_CHANNEL } from '../health/channel.ts';
import { healthChanges, lookAtHealthAlerts, type HealthAlertPayload, type HealthCursor } from './health-changes.ts';
import { LiveConnection } from './connection.ts';
import { detectionPayload, detectionRowsById } from './detection-payload.ts';
import { CLOSE, defaultFeeds, envelope, parseFeed, PROTOCOL_VERSION, type ClientMessage, type LiveError, type LiveErrorReason } from './protocol.ts';
import { sessionError } from './session-error.ts';
import { scopeAllows, siteScopesOf, ALL_SITES, type SiteScope } from '../sites/scope.ts';

export interface LiveOptions {
  maxConnectionsPerUser: number;
  pingIntervalMs?: number;
  statusPollMs?: number;
}

export interface LiveStats {
  connections: number;
  alertsSent: number;
  detectionsSent: number;
  fetches: number;
}

export interface LiveBroker {
  /** A new socket authenticated with `token` (its session cookie): registered, or told why not and closed. */
  accept(ws: WebSocket, user: SessionUser, token: string): void;
  start(listen: Listen): Promise<void>;
  stop(): Promise<void>;
  stats(): LiveStats;
  /** For tests and the bench: deliver these alert ids now (what the NOTIFY does). */
  deliverAlerts(ids: readonly string[]): Promise<void>;
  /** For tests: send these alerts' verification now (what the NOTIFY of alerts/verify.ts does). */
  deliverVerifications(ids: readonly string[]): Promise<void>;
  deliverDetections(pks: readonly string[]): Promise<void>;
  pollCollectors(): Promise<void>;
}

export function createLiveBroker(deps: AuthContext, options: LiveOptions): LiveBroker {
  const pingIntervalMs = options.pingIntervalMs ?? 30_000;
  const statusPollMs = options.statusPollMs ?? 10_000;
  const connections = new Set<LiveConnection>();
  const byUser = new Map<string, Set<LiveConnection>>();
  const stats = { alertsSent: 0, detectionsSent: 0, fetches: 0 };
  let unlisten: Unlisten[] = [];
  let statusTimer: NodeJS.Timeout | undefined;
  let presence: Map<string, Presence> | undefined;
  let healthCursor: HealthCursor | undefined;
  // The evaluator's notice and the status poll share the cursor: one look at a time.
  let healthChain: Promise<void> = Promise.resolve();
  // One delivery at a time per kind, in NOTIFY order: a client sees alerts in commit order.
  let alertChain: Promise<void> = Promise.resolve();
  let detectionChain: Promise<void> = Promise.resolve();
  const signer = () => linkSigner(deps.config, deps.clock.now());

  const watchlistSubscribed = (userId: string, watchlistId: string): Promise<boolean> => isSubscribed(deps.db, userId, watchlistId);

  /** Why `user` may not subscribe to the feed `name`, or undefined if they may. */
  async function subscriptionRefusal(user: SessionUser, name: string): Promise<LiveError | undefined> {
    const feed = parseFeed(name);
    const denied = (reason: LiveErrorReason<'SUBSCRIPTION_DENIED'>, message: string): LiveError => ({
      code: 'SUBSCRIPTION_DENIED',
      reason,
      message,
      feed: name,
    });
    if (!feed) return denied('unknown_feed', `unknown feed "${name.slice(0, 60)}": alerts:*, alerts:{watchlist_id}, detections:live, collectors:status`);
    if (feed.kind === 'collectors' && user.role !== 'admin') return denied('admin_only', 'collectors:status is for admins');
    if (feed.kind === 'watchlist_alerts' && !(await watchlistSubscribed(user.id, feed.watchlistId)))
      return denied('watchlist_not_subscribed', 'subscribe to the watchlist first (POST /api/v1/watchlist/{id}/subscription)');
    return undefined;
  }

  async function onMessage(connection: LiveConnection, message: ClientMessage): Promise<void> {
    if (message.type === 'pong') return;
    const name = message.payload.feed;
    const feed = parseFeed(name);
    if (message.type === 'unsubscribe') {
      const had = connection.feeds.delete(name);
      connection.send('unsubscribed', { feed: name, success: had });
      return;
    }
    const refusal = await subscriptionRefusal(connection.user, name);
    if (refusal) {
      connection.error(refusal);
      connection.send('subscribed', { feed: name, success: false });
      return;
    }
    connection.feeds.add(feed?.kind === 'watchlist_alerts' ? `alerts:${feed.watchlistId}` : name);
    connection.send('subscribed', { feed: name, success: true });
  }

  function accept(ws: WebSocket, user: SessionUser, token: string): void {
    const mine = byUser.get(user.id) ?? new Set<LiveConnection>();
    const connection = new LiveConnection(ws, user, {
      pingIntervalMs,
      now: () => deps.clock.now(),
      log: deps.log,
      onMessage,
      // The same checks as at the upgrade: expiry, logout, an admin ending sessions, deactivation.
      // Anything but a refusal (the database away) is thrown on, and the connection stays.
      sessionProblem: () =>
        authenticateSession(deps, token).then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof AuthFailure) return sessionError(err);
            throw err;
          },
        ),
      onClose: (c) => {
        connections.delete(c);
        const set = byUser.get(c.user.id);
        set?.delete(c);
        if (set && set.size === 0) byUser.delete(c.user.id);
      },
    });
    if (mine.size >= options.maxConnectionsPerUser) {
      connection.error({
        code: 'RATE_LIMITED',
        reason: 'too_many_connections',
        message: `at most ${options.maxConnectionsPerUser} live connections per user; close another one first`,
      });
      connection.close(CLOSE.tooManyConnections, 'too many connections');
      return;
    }
    mine.add(connection);
    byUser.set(user.id, mine);
    connections.add(connection);
    for (const feed of defaultFeeds(user.role)) connection.feeds.add(feed);
    connection.send('connected', {
      protocol_version: PROTOCOL_VERSION,
      user_id: user.id,
      role: user.role,
      feeds: [...connection.feeds],
      ping_interval_seconds: pingIntervalMs / 1000,
    });
  }

  /**
   * The site scope of each listener's user, read afresh for every delivery (docs/sites.md): a
   * change to a user's sites holds on their open sockets from the next event. Admins are
   * asked nothing; the others cost one query per delivery, not one per connection.
   */
  async function scopesOf(listeners: readonly LiveConnection[]): Promise<(c: LiveConnection) => SiteScope> {
    const ids = [...new Set(listeners.filter((c) => c.user.role !== 'admin').map((c) => c.user.id))];
    const scopes = await siteScopesOf(deps.db, ids);
    const none: SiteScope = { all: false, siteIds: [], collectorIds: [] };
    return (c) => (c.user.role === 'admin' ? ALL_SITES : (scopes.get(c.user.id) ?? none));
  }

  /** Who hears about an alert: subscribed to its watchlist, with alerts:* or that list's feed on, and the read inside their sites. */
  async function alertListeners(rows: readonly AlertRow[]): Promise<(row: AlertRow) => LiveConnection[]> {
    const watchlistIds = [...new Set(rows.map((r) => r.watchlist_id))];
    const subs = await subscribersOf(deps.db, watchlistIds);
    const subscribed = new Set(subs.map((s) => `${s.user_id}/${s.watchlist_id}`));
    const hearing = [...connections].filter((c) => c.feeds.has('alerts:*') || [...c.feeds].some((f) => f.startsWith('alerts:')));
    const scopeOf = await scopesOf(hearing);
    return (row) =>
      hearing.filter(
        (c) =>
          subscribed.has(`${c.user.id}/${row.watchlist_id}`) &&
          (c.feeds.has('alerts:*') || c.feeds.has(`alerts:${row.watchlist_id}`)) &&
          scopeAllows(scopeOf(c), row.collector_id),
      );
  }

  async function deliverAlerts(ids: readonly string[]): Promise<void> {
    if (connections.size === 0 || ids.length === 0) return;
    const rows = await alertRowsById(deps.db, ids);
    stats.fetches += 1;
    if (rows.length === 0) return;
    const listeners = await alertListeners(rows);
    const sign = signer();
    for (const row of rows) {
      const text = JSON.stringify(envelope('alert', { ...alertPayload(row, sign) }, deps.clock.now(), `alert:${row.id}`));
      for (const c of listeners(row)) {
        c.sendText('alert', text);
        stats.alertsSent += 1;
      }
    }
  }

  /**
   * An alert confirmed or marked misread (docs/live.md "alert_verification"): the same
   * listeners as its `alert`, so every open page updates its label without a reload.
   */
  async function deliverVerifications(ids: readonly string[]): Promise<void> {
    if (connections.size === 0 || ids.length === 0) return;
    const rows = await alertRowsById(deps.db, ids);
    stats.fetches += 1;
    if (rows.length === 0) return;
    const listeners = await alertListeners(rows);
    for (const row of rows) {
      const verification = verificationRecord(row);
      const payload = { alert_id: String(row.id), watchlist_id: row.watchlist_id, verification };
      const text = JSON.stringify(envelope('alert_verification', payload, deps.clock.now(), `alert_verification:${row.id}:${verification.state}`));
      for (const c of listeners(row)) c.sendText('alert', text);
    }
  }

  async function deliverDetections(pks: readonly string[]): Promise<void> {
    const listeners = [...connections].filter((c) => c.feeds.has('detections:live'));
    if (listeners.length === 0 || pks.length === 0) return;
    const rows = await detectionRowsById(deps.db, pks);
    stats.fetches += 1;
    const sign = signer();
    const scopeOf = await scopesOf(listeners);
    for (const row of rows) {
      const text = JSON.stringify(envelope('detection', { ...detectionPayload(row, sign) }, deps.clock.now(), `detection:${row.id}`));
      for (const c of listeners) {
        if (!scopeAllows(scopeOf(c), row.collector_id)) continue;
        c.sendText('detection', text);
        stats.detectionsSent += 1;
      }
    }
  }

  async function pollCollectors(): Promise<void> {
    const now = deps.clock.now();
    const rows = await collectorsForPresence(deps.db);
    const current = new Map<string, { presence: Presence; snapshot: CollectorSnapshot }>();
    for (const r of rows) {
      const snapshot: CollectorSnapshot = {
        id: r.id,
        name: r.site_name,
        lastHeartbeatAt: r.last_heartbeat_at ? new Date(r.last_heartbeat_at) : null,
        camerasOnline: r.last_heartbeat?.cameras_online ?? null,
        camerasTotal: r.last_heartbeat?.cameras_total ?? null,
      };
      current.set(r.id, {
        presence: connectivity({ status: r.status, lastHeartbeatAt: snapshot.lastHeartbeatAt, config: r.config }, deps.config, now),
        snapshot,
      });
    }
    const changes = presence ? presenceChanges(presence, current) : [];
    presence = new Map([...current].map(([id, v]) => [id, v.presence]));
    for (const change of changes) {
      const text = JSON.stringify(
        envelope(
          'collector_status',
          {
            collector_id: change.collector.id,
            collector_name: change.collector.name,
            status: change.status,
            previous_status: change.previous,
            last_heartbeat_at: change.collector.lastHeartbeatAt?.toISOString() ?? null,
            cameras_online: change.collector.camerasOnline,
            cameras_total: change.collector.camerasTotal,
          },
          now,
        ),
      );
      sendToStatusFeed(text);
    }
    await lookAtHealth(now);
  }

  /** A look at health alerts after the ones already queued (the notice's or the poll's). */
  function lookAtHealth(now: Date): Promise<void> {
    const look = healthChain.then(() => pollHealthAlerts(now));
    healthChain = look.catch(() => undefined);
    return look;
  }

  /** Admins only: subscribing to collectors:status is refused to others, this checks again. */
  function sendToStatusFeed(text: string): void {
    for (const c of connections) if (c.user.role === 'admin' && c.feeds.has('collectors:status')) c.sendText('other', text);
  }

  /**
   * Health alerts opened or closed since the last look (docs/live.md "Health alerts"): one
   * `health_alert` message each, in id order, an opening before its closing.
   */
  async function pollHealthAlerts(now: Date): Promise<void> {
    const rows = await lookAtHealthAlerts(deps.db, healthCursor);
    const { changes, next } = healthChanges(healthCursor, rows);
    healthCursor = next;
    if (changes.length === 0) return;
    const records = new Map((await healthAlertsById(deps.db, [...new Set(changes.map((c) => c.id))])).map((r) => [r.id, r]));
    for (const change of changes) {
      const alert = records.get(change.id);
      // Gone meanwhile: its collector was deleted (ON DELETE CASCADE); nothing left to show.
      if (!alert) continue;
      const payload: HealthAlertPayload = { event: change.event, alert };
      sendToStatusFeed(JSON.stringify(envelope('health_alert', { ...payload }, now, `health_alert:${alert.id}:${change.event}`)));
    }
  }

  const parseIds = (payload: string): string[] => {
    try {
      const parsed = JSON.parse(payload) as { ids?: unknown };
      return Array.isArray(parsed.ids) ? parsed.ids.map(String).filter(isBigintId) : [];
    } catch {
      return [];
    }
  };

  return {
    accept,
    deliverAlerts,
    deliverVerifications,
    deliverDetections,
    pollCollectors,
    stats: () => ({ connections: connections.size, ...stats }),
    async start(listen) {
      unlisten.push(
        await listen(ALERT_CHANNEL, (payload) => {
          const ids = parseIds(payload);
          alertChain = alertChain.then(() => deliverAlerts(ids)).catch((err: unknown) => deps.log.error({ err }, 'live alert delivery failed'));
        }),
      );
      unlisten.push(
        await listen(ALERT_VERIFIED_CHANNEL, (payload) => {
          const ids = parseIds(payload);
          alertChain = alertChain.then(() => deliverVerifications(ids)).catch((err: unknown) => deps.log.error({ err }, 'live verification delivery failed'));
        }),
      );
      unlisten.push(
        await listen(DETECTIONS_CHANNEL, (payload) => {
          const ids = parseIds(payload);
          detectionChain = detectionChain.then(() => deliverDetections(ids)).catch((err: unknown) => deps.log.error({ err }, 'live detection delivery failed'));
        }),
      );
      // Health changes at once on the evaluator's notice (sent in its transaction, so heard after
      // its commit): the status poll runs in step with the evaluator and would just miss it,
      // telling every change 10 s late. The poll stays as the safety net for a lost notice.
      unlisten.push(
        await listen(HEALTH_CHANNEL, () => {
          void lookAtHealth(deps.clock.now()).catch((err: unknown) => deps.log.error({ err }, 'live health alert look failed'));
        }),
      );
      await pollCollectors().catch((err: unknown) => deps.log.error({ err }, 'collector status poll failed'));
      statusTimer = setInterval(() => void pollCollectors().catch((err: unknown) => deps.log.error({ err }, 'collector status poll failed')), statusPollMs);
      statusTimer.unref();
    },
    async stop() {
      clearInterval(statusTimer);
      for (const u of unlisten) await u().catch(() => undefined);
      unlisten = [];
      for (const c of [...connections]) c.close(CLOSE.shuttingDown, 'hub stopping');
      await Promise.allSettled([alertChain, detectionChain, healthChain]);
    },
  };
}
