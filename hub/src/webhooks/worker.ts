/**
 * The webhook delivery worker (docs/webhooks.md "Delivery"): claims due deliveries, POSTs
 * each signed body, settles the outcome. The bot's loop (platform/loops/wakeable-loop.ts), woken by
 * a raised alert or a test event; otherwise it sleeps until the next retry is due (at most
 * `pollMs`). Several may run on one database: claims never overlap.
 */
import { request } from 'undici';
import type { Clock } from '../platform/clock.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { ALERT_CHANNEL, WEBHOOK_CHANNEL } from '../db/channels.ts';
import type { Listen } from '../db/listen.ts';
import type { DbSession } from '../db/session.ts';
import type { Log } from '../platform/log.ts';
import { createWakeableLoop } from '../platform/loops/wakeable-loop.ts';
import { claimDeliveries, nextDueAt, reapStale, settleFailed, settleSent, type ClaimedDelivery } from './queue.ts';
import { openWebhookSecret, SEALED_SECRET_UNREADABLE, sealPlainSecrets } from './secret-store.ts';
import { signedHeaders } from './sign.ts';

export interface WebhookWorkerOptions {
  pollMs?: number;
  /** A receiver that has not answered in this long has failed this try (default 10 s). */
  timeoutMs?: number;
  /** A claim older than this belongs to a worker that stopped (default 60 s: > timeoutMs). */
  lockTimeoutMs?: number;
  /** Told of every try's outcome (tests, metrics). */
  onAttempt?: (event: { messageId: string; ok: boolean; status: number | null; error?: string }) => void;
}

export interface WebhookWorker {
  runOnce(): Promise<number>;
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
}

/** Receivers answer briefly; more is not read (and a huge answer cannot hold the worker). */
const MAX_ERROR_TEXT = 200;

export interface WebhookWorkerDeps {
  db: DbSession;
  clock: Clock;
  log: Log;
  /** The hub secret opens the sealed signing secrets. */
  config: HubConfig;
}

export function createWebhookWorker(deps: WebhookWorkerDeps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const pollMs = options.pollMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const lockTimeoutMs = options.lockTimeoutMs ?? 60_000;
  const reapEveryMs = Math.min(10_000, lockTimeoutMs / 3);
  let lastReapMs = -Infinity;
  let nextDue: Date | null = null;
  let sealed = false;

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const secret = 'plain' in d.secret ? d.secret.plain : openWebhookSecret(deps.config, d.secret);
    let status: number | null = null;
    let error: string | undefined;
    // A box that does not open fails this try like an unreachable receiver: retried with the
    // backoff (restoring the hub secret heals it), the reason on the delivery and the target.
    if (secret === null) error = SEALED_SECRET_UNREADABLE;
    else
      try {
        const headers = signedHeaders(secret, d.messageId, deps.clock.now(), d.body);
        const res = await request(d.url, {
          method: 'POST',
          headers: { ...headers, 'user-agent': 'alpr-hub-webhooks/1' },
          body: d.body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        status = res.statusCode;
        const text = await res.body.text().catch(() => '');
        if (status < 200 || status >= 300) error = `HTTP ${status}${text ? `: ${text.slice(0, MAX_ERROR_TEXT)}` : ''}`;
      } catch (err) {
        error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
    const now = deps.clock.now();
    if (error === undefined && status !== null) {
      await settleSent(deps.db, d, status, now);
      options.onAttempt?.({ messageId: d.messageId, ok: true, status });
      return;
    }
    const outcome = await settleFailed(deps.db, d, { status, error: error ?? 'no answer' }, now);
    options.onAttempt?.({ messageId: d.messageId, ok: false, status, ...(error ? { error } : {}) });
    deps.log[outcome === 'failed' ? 'error' : 'warn'](
      { target: d.targetId, message_id: d.messageId, attempts: d.attempts, status, err: error },
      outcome === 'failed' ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry',
    );
  }

  async function runOnce(): Promise<number> {
    if (!sealed) {
      // Once per worker: secrets stored in clear before migration 0034 are sealed before the
      // first claim (docs/webhooks.md "Secrets at rest").
      const count = await sealPlainSecrets(deps);
      if (count > 0) deps.log.info({ count }, 'webhooks: sealed signing secrets stored in clear by an older hub');
      sealed = true;
    }
    const now = deps.clock.now();
    if (now.getTime() - lastReapMs >= reapEveryMs) {
      lastReapMs = now.getTime();
      const reaped = await reapStale(deps.db, new Date(now.getTime() - lockTimeoutMs), now);
      if (reaped > 0) deps.log.warn({ reaped }, 'webhooks: took back the claims of a worker that stopped');
    }
    const claimed = await claimDeliveries(deps.db, now);
    await Promise.all(claimed.map((d) => deliver(d)));
    nextDue = await nextDueAt(deps.db);
    return claimed.length;
  }

  const loop = createWakeableLoop({
    channel: [ALERT_CHANNEL, WEBHOOK_CHANNEL],
    errorWaitMs: pollMs,
    log: deps.log,
    name: 'webhook delivery',
    pass: async () => {
      if ((await runOnce()) > 0) return 0;
      const untilDue = nextDue ? nextDue.getTime() - deps.clock.now().getTime() : pollMs;
      return Math.max(10, Math.min(pollMs, untilDue));
    },
  });

  return { runOnce, start: (listen) => loop.start(listen), stop: () => loop.stop(), wake: () => loop.wake() };
}
