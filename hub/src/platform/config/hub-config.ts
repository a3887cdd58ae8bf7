import { z } from 'zod';
import { join } from 'node:path';
import type { ServerTimeouts } from '@alpr/shared/http/timeouts';
import { parseTrustedProxies } from '../http/client-address.ts';
import { DEFAULT_HORIZONS, MIN_RECORD_DAYS, type RetentionHorizons } from './retention-horizons.ts';
import { MIN_NON_HITS_DAYS, RETENTION_PRESETS, withPreset, type RetentionPreset } from './retention-presets.ts';
import { cronScheduleProblem } from '../cron.ts';
import { chooseTransport, type HubTransport } from './transport.ts';
import { loadMqttOutConfig, type MqttOutConfig } from './mqtt-out.ts';

/**
 * The hub's configuration, parsed once at start from the environment (the only place that
 * reads `process.env`) and passed down. Defaults make `npm start` work with nothing set.
 */
const envSchema = z.object({
  HUB_HOST: z.string().default('127.0.0.1'),
  HUB_PORT: z.coerce.number().int().min(0).max(65535).default(8443),
  /**
   * Serve HTTPS (TLS 1.3 only) with this PEM certificate chain and key; both or neither
   * (docs/security.md "TLS by default"). Unset on a non-loopback host: a self-signed pair
   * generated on first start and kept in HUB_DATA_DIR.
   */
  HUB_TLS_CERT_FILE: z.string().min(1).optional(),
  HUB_TLS_KEY_FILE: z.string().min(1).optional(),
  /**
   * Reverse proxies whose `X-Forwarded-For` is believed: comma-separated addresses or CIDR
   * ranges (docs/security.md "TLS deployment"). Unset: nobody's; the socket peer is the client.
   */
  HUB_TRUSTED_PROXIES: z.string().default(''),
  /**
   * `true`: plain HTTP on a non-loopback host because a TLS proxy in front terminates TLS
   * 1.3. Refused at start unless HUB_TRUSTED_PROXIES names that proxy (docs/security.md
   * "TLS by default"): the only way a non-loopback hub listens without TLS.
   */
  HUB_BEHIND_TLS_PROXY: z.enum(['true', 'false']).default('false'),
  /** Public base URL handed to collectors at claim (`central_url`). */
  HUB_PUBLIC_URL: z.string().url().optional(),
  /** Unset: embedded PGlite in `${HUB_DATA_DIR}/pglite`. */
  DATABASE_URL: z.string().optional(),
  HUB_DATA_DIR: z.string().default('.data/hub'),
  HUB_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest accepted batch body (bytes); 50 detections x ~85 KB of images is ~4.3 MB. */
  HUB_MAX_BATCH_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(12 * 1024 * 1024),
  /** Largest direct camera push (a multipart ANPR post is ~200 KB). */
  HUB_MAX_WEBHOOK_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024),
  /**
   * Capture times further ahead of the hub's clock are rejected per item (docs/ingest.md):
   * 24 h covers drifting camera clocks and a camera set to local time as if it were UTC;
   * at most 60 days, so an accepted time always has its monthly partition (3 months ahead).
   */
  HUB_MAX_CAPTURE_AHEAD_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(60 * 86_400)
    .default(86_400),
  /**
   * `on`: the alert worker runs inside the hub process. `off`: run it as its own process
   * (`npm run hub -- worker`), e.g. to scale it apart from the HTTP servers (docs/alerts.md).
   */
  HUB_ALERT_WORKER: z.enum(['on', 'off']).default('on'),
  /**
   * A queue item claimed longer ago than this is taken to belong to a dead worker and handed
   * out again (docs/alerts.md): 30 s is ~100 times a normal batch; returned within 40 s.
   */
  HUB_ALERT_LOCK_TIMEOUT_SECONDS: z.coerce.number().int().min(2).max(600).default(30),
  /** Live channel (`GET /ws`): connections a user may hold at once (default 5). */
  HUB_LIVE_MAX_CONNECTIONS_PER_USER: z.coerce.number().int().min(1).max(100).default(5),
  /**
   * Retention (docs/retention.md): when the daily run starts, a cron expression in UTC, or
   * `off` (then run `npm run hub -- retention` from the system's own scheduler).
   */
  HUB_RETENTION_SCHEDULE: z.string().default('17 3 * * *'),
  /** Images by capture time (1 year). */
  HUB_RETENTION_IMAGES_DAYS: z.coerce.number().int().min(1).max(36_500).default(DEFAULT_HORIZONS.imagesDays),
  /** Detection metadata by capture time (7 years); the database refuses under a year. */
  HUB_RETENTION_DETECTIONS_DAYS: z.coerce.number().int().min(MIN_RECORD_DAYS).max(36_500).default(DEFAULT_HORIZONS.detectionsDays),
  HUB_RETENTION_ALERTS_DAYS: z.coerce.number().int().min(MIN_RECORD_DAYS).max(36_500).default(DEFAULT_HORIZONS.alertsDays),
  HUB_RETENTION_AUDIT_DAYS: z.coerce.number().int().min(MIN_RECORD_DAYS).max(36_500).default(DEFAULT_HORIZONS.auditDays),
  /** Legal hold records, counted from the hold's end (release or expiry). */
  HUB_RETENTION_HOLDS_DAYS: z.coerce.number().int().min(MIN_RECORD_DAYS).max(36_500).default(DEFAULT_HORIZONS.holdsDays),
  /** The non-hit tier (docs/retention.md "Tiers and presets"): default | 90d | 21d | 24h. */
  HUB_RETENTION_PRESET: z.enum(RETENTION_PRESETS).default('default'),
  /** Overrides the preset's period for reads that matched nothing, in days. */
  HUB_RETENTION_NON_HITS_DAYS: z.coerce.number().int().min(MIN_NON_HITS_DAYS).max(36_500).optional(),
  /** The public account at /transparency (docs/transparency.md): off (404) unless turned on. */
  HUB_TRANSPARENCY: z.enum(['on', 'off']).default('off'),
  /**
   * The messaging bot (docs/messaging.md). Unset token: no bot. `polling` (default) asks the
   * platform for updates; `webhook` receives them at POST /api/v1/telegram/webhook, which needs
   * HUB_TELEGRAM_WEBHOOK_SECRET (the platform echoes it in X-Telegram-Bot-Api-Secret-Token).
   */
  HUB_TELEGRAM_BOT_TOKEN: z
    .string()
    .regex(/^\d{1,20}:[A-Za-z0-9_-]{1,100}$/, 'not a bot token (digits:letters)')
    .optional(),
  HUB_TELEGRAM_API_URL: z.string().url().default('https://api.telegram.org'),
  HUB_TELEGRAM_MODE: z.enum(['polling', 'webhook']).default('polling'),
  HUB_TELEGRAM_WEBHOOK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,256}$/, '16-256 letters, digits, _ or -')
    .optional(),
  /** Alerts for one chat within this many seconds go out as one message (5); 0 sends each at once. */
  HUB_TELEGRAM_AGGREGATE_SECONDS: z.coerce.number().min(0).max(60).default(5),
  /** A plate that reached a chat is not sent there again for this long (one parked car, one message). */
  HUB_TELEGRAM_COOLDOWN_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(600),
  /** Heartbeat interval collectors are told to use; offline after 3 missed ones. */
  HUB_HEARTBEAT_SECONDS: z.coerce.number().int().positive().default(60),
  /**
   * Hub secret for session signatures and TOTP-secret encryption (at least 32 characters).
   * Unset: generated once into `${HUB_DATA_DIR}/hub-secret` (see docs/auth.md).
   */
  HUB_SESSION_SECRET: z.string().min(32).optional(),
  /** `Secure` on session cookies; unset: on when HUB_PUBLIC_URL is https. */
  HUB_SECURE_COOKIES: z.enum(['true', 'false']).optional(),
  /** Slow clients (docs/security.md "Hostile input"): the request head must arrive within this. */
  HUB_HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
  /**
   * Head and body together. 120 s lets a full 12 MB batch through a 1 Mbit/s uplink;
   * anything slower is cut off (408) and the collector retries the batch later.
   */
  HUB_REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().default(120),
  /** An idle keep-alive connection between requests is closed after this. */
  HUB_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().positive().default(5),
  /** Bearer token for `GET /metrics` from other hosts (docs/metrics.md); unset: loopback only. */
  HUB_METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{32,256}$/, '32-256 printable characters')
    .optional(),
});

export interface HubConfig {
  host: string;
  port: number;
  publicUrl: string;
  databaseUrl?: string;
  dataDir: string;
  pgliteDir: string;
  imageDir: string;
  logLevel: z.infer<typeof envSchema>['HUB_LOG_LEVEL'];
  maxBatchBytes: number;
  maxWebhookBytes: number;
  heartbeatSeconds: number;
  /** The alert worker runs inside this process (HUB_ALERT_WORKER). */
  alertWorker: boolean;
  alertLockTimeoutMs: number;
  liveMaxConnectionsPerUser: number;
  /** Per-item limit on how far a capture time may be ahead of the hub's clock. */
  maxCaptureAheadSeconds: number;
  /** Optional: absent means the generated secret file in dataDir (platform/secrets/hub-secret.ts). */
  sessionSecret?: string;
  /** Session cookies carry `Secure` (served over TLS, directly or behind a proxy). */
  secureCookies?: boolean;
  /** Slow-client bounds for the HTTP server (main.ts). */
  timeouts: ServerTimeouts;
  /** Proxy addresses/ranges whose X-Forwarded-For is honoured (http/client-address.ts). */
  trustedProxies: readonly string[];
  /** PEM files: the hub serves HTTPS itself, TLS 1.3 only. */
  tls?: { certFile: string; keyFile: string };
  /**
   * How the listener speaks (platform/config/transport.ts): `https` with the given files or a generated
   * certificate, `plain_loopback` (loopback host, no files), `behind_proxy` (explicit).
   */
  transport: HubTransport;
  /**
   * SHA-256 of the certificate served, filled by main.ts once loaded or generated; absent on
   * plain HTTP and in tests that build the app without a listener.
   */
  certificateSha256?: string;
  /** The messaging bot, when configured. */
  telegram?: { token: string; apiUrl: string; mode: 'polling' | 'webhook'; webhookSecret?: string; aggregateMs: number; cooldownMs: number };
  /** Daily retention run: cron expression (UTC), or null when off. */
  retentionSchedule: string | null;
  retention: RetentionHorizons;
  /** The preset the non-hit tier came from (HUB_RETENTION_PRESET). */
  retentionPreset: RetentionPreset;
  /** HUB_TRANSPARENCY: serve the public account at /transparency (docs/transparency.md). */
  transparency: boolean;
  /** HUB_METRICS_TOKEN: lets a scraper on another host read /metrics (docs/metrics.md). */
  metricsToken?: string;
  /** MQTT out (docs/mqtt.md): HUB_MQTT_*; absent when HUB_MQTT_URL is unset. */
  mqtt?: MqttOutConfig;
}

export function loadHubConfig(env: Readonly<Record<string, string | undefined>>): HubConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid hub configuration: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  if ((e.HUB_TLS_CERT_FILE === undefined) !== (e.HUB_TLS_KEY_FILE === undefined)) {
    throw new Error('invalid hub configuration: HUB_TLS_CERT_FILE and HUB_TLS_KEY_FILE go together');
  }
  const tls = e.HUB_TLS_CERT_FILE && e.HUB_TLS_KEY_FILE ? { certFile: e.HUB_TLS_CERT_FILE, keyFile: e.HUB_TLS_KEY_FILE } : undefined;
  const trustedProxies = e.HUB_TRUSTED_PROXIES.split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    parseTrustedProxies(trustedProxies);
  } catch (err) {
    throw new Error(`invalid hub configuration: HUB_TRUSTED_PROXIES: ${(err as Error).message}`);
  }
  const chosen = chooseTransport({ host: e.HUB_HOST, files: tls !== undefined, behindProxy: e.HUB_BEHIND_TLS_PROXY === 'true', trustedProxies });
  if (!chosen.ok) throw new Error(`invalid hub configuration: ${chosen.problem}`);
  const transport = chosen.transport;
  const retentionSchedule = e.HUB_RETENTION_SCHEDULE.trim() === 'off' ? null : e.HUB_RETENTION_SCHEDULE.trim();
  const scheduleError = retentionSchedule === null ? undefined : cronScheduleProblem(retentionSchedule);
  if (scheduleError) throw new Error(`invalid hub configuration: HUB_RETENTION_SCHEDULE: ${scheduleError}`);
  if (e.HUB_TELEGRAM_BOT_TOKEN && e.HUB_TELEGRAM_MODE === 'webhook' && !e.HUB_TELEGRAM_WEBHOOK_SECRET) {
    throw new Error('invalid hub configuration: HUB_TELEGRAM_MODE=webhook needs HUB_TELEGRAM_WEBHOOK_SECRET');
  }
  const telegram = e.HUB_TELEGRAM_BOT_TOKEN
    ? {
        token: e.HUB_TELEGRAM_BOT_TOKEN,
        apiUrl: e.HUB_TELEGRAM_API_URL,
        mode: e.HUB_TELEGRAM_MODE,
        aggregateMs: e.HUB_TELEGRAM_AGGREGATE_SECONDS * 1000,
        cooldownMs: e.HUB_TELEGRAM_COOLDOWN_SECONDS * 1000,
        ...(e.HUB_TELEGRAM_WEBHOOK_SECRET ? { webhookSecret: e.HUB_TELEGRAM_WEBHOOK_SECRET } : {}),
      }
    : undefined;
  const publicUrl = e.HUB_PUBLIC_URL ?? `${transport === 'https' ? 'https' : 'http'}://${urlHost(e.HUB_HOST)}:${e.HUB_PORT}`;
  const mqtt = loadMqttOutConfig(env);
  return {
    ...(mqtt ? { mqtt } : {}),
    ...(tls ? { tls } : {}),
    transport,
    trustedProxies,
    host: e.HUB_HOST,
    port: e.HUB_PORT,
    publicUrl,
    ...(e.DATABASE_URL ? { databaseUrl: e.DATABASE_URL } : {}),
    dataDir: e.HUB_DATA_DIR,
    pgliteDir: join(e.HUB_DATA_DIR, 'pglite'),
    imageDir: join(e.HUB_DATA_DIR, 'images'),
    logLevel: e.HUB_LOG_LEVEL,
    maxBatchBytes: e.HUB_MAX_BATCH_BYTES,
    maxWebhookBytes: e.HUB_MAX_WEBHOOK_BYTES,
    heartbeatSeconds: e.HUB_HEARTBEAT_SECONDS,
    alertWorker: e.HUB_ALERT_WORKER === 'on',
    alertLockTimeoutMs: e.HUB_ALERT_LOCK_TIMEOUT_SECONDS * 1000,
    liveMaxConnectionsPerUser: e.HUB_LIVE_MAX_CONNECTIONS_PER_USER,
    maxCaptureAheadSeconds: e.HUB_MAX_CAPTURE_AHEAD_SECONDS,
    ...(e.HUB_SESSION_SECRET ? { sessionSecret: e.HUB_SESSION_SECRET } : {}),
    secureCookies: e.HUB_SECURE_COOKIES === undefined ? publicUrl.startsWith('https:') : e.HUB_SECURE_COOKIES === 'true',
    ...(telegram ? { telegram } : {}),
    ...(e.HUB_METRICS_TOKEN ? { metricsToken: e.HUB_METRICS_TOKEN } : {}),
    retentionSchedule,
    retentionPreset: e.HUB_RETENTION_PRESET,
    transparency: e.HUB_TRANSPARENCY === 'on',
    retention: withPreset(
      {
        imagesDays: e.HUB_RETENTION_IMAGES_DAYS,
        detectionsDays: e.HUB_RETENTION_DETECTIONS_DAYS,
        alertsDays: e.HUB_RETENTION_ALERTS_DAYS,
        auditDays: e.HUB_RETENTION_AUDIT_DAYS,
        holdsDays: e.HUB_RETENTION_HOLDS_DAYS,
      },
      e.HUB_RETENTION_PRESET,
      e.HUB_RETENTION_NON_HITS_DAYS,
    ),
    timeouts: {
      headersMs: e.HUB_HEADERS_TIMEOUT_SECONDS * 1000,
      requestMs: e.HUB_REQUEST_TIMEOUT_SECONDS * 1000,
      keepAliveMs: e.HUB_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
  };
}

/** An IPv6 listen address in a URL goes in brackets. */
const urlHost = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
