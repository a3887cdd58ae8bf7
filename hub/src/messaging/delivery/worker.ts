/**
 * The delivery worker (docs/messaging.md "Delivery"):
 * finds chats whose pending items are due (the 5 s aggregation window or a retry's
 * backoff), claims each chat's items into one message, waits for the platform's limits,
 * and sends a photo with a caption (one alert with a crop) or a text (several, or no crop).
 * Woken by the alert worker's NOTIFY; otherwise it sleeps until the next item is due (at
 * most `pollMs`). Several may run on one database: claims never overlap.
 */
import type { Clock } from '../../platform/clock.ts';
import type { DbSession } from '../../db/session.ts';
import type { Log } from '../../platform/log.ts';
import { ALERT_CHANNEL } from '../../db/channels.ts';
import type { Listen } from '../../db/listen.ts';
import { BotApiError, type BotApi } from '../bot-api.ts';
import { loadMessage } from './load-message.ts';
import { aggregatedText, singleAlertText } from './message-text.ts';
import {
  claimChat,
  dueChats,
  markSending,
  releaseItems,
  pausedUntil,
  pauseSending,
  reapStaleDeliveries,
  settleFailed,
  settleSent,
  type ClaimedMessage,
  type Failure,
} from './queue.ts';
import { pauseAfter429 } from './retry.ts';
import { createSendLimits, type SendLimits } from './send-limits.ts';
import { createWakeableLoop } from '../../platform/loops/wakeable-loop.ts';

export interface DeliveryOptions {
  /** Alerts for one chat within this window go as one message (HUB_TELEGRAM_AGGREGATE_SECONDS). */
  windowMs: number;
  /** Base URL of the dashboard for detection links. */
  publicUrl: string;
  /** A claim older than this belongs to a dead worker (HUB_ALERT_LOCK_TIMEOUT_SECONDS). */
  lockTimeoutMs: number;
  pollMs?: number;
  limits?: SendLimits;
  /** Told about every message that went out (the demo's transcript, tests). */
  onSent?: (event: { chatId: string; method: string; alerts: number; text: string }) => void;
}

export interface DeliveryDeps {
  db: DbSession;
  clock: Clock;
  log: Log;
  api: BotApi;
  /** The crop's bytes by hash; undefined when it is not (or no longer) stored. */
  image(sha256: string): Promise<Uint8Array | undefined>;
}

export interface DeliveryStats {
  messages: number;
  failures: number;
  rateLimited: number;
  reaped: number;
}

export interface DeliveryWorker {
  runOnce(): Promise<number>;
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
  stats(): DeliveryStats;
}

type Result<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function createDeliveryWorker(deps: DeliveryDeps, options: DeliveryOptions): DeliveryWorker {
  const pollMs = options.pollMs ?? 1000;
  const limits = options.limits ?? createSendLimits();
  const reapEveryMs = Math.min(10_000, options.lockTimeoutMs / 3);
  const stats: DeliveryStats = { messages: 0, failures: 0, rateLimited: 0, reaped: 0 };
  let consecutive429 = 0;
  let lastReapMs = -Infinity;
  let nextDueAt: Date | null = null;
  let started = false;

  async function attempt<T>(fn: () => Promise<T>): Promise<Result<T>> {
    try {
      return { ok: true, value: await fn() };
    } catch (error) {
      return { ok: false, error };
    }
  }

  async function deliver(message: ClaimedMessage): Promise<void> {
    const content = await loadMessage(deps.db, message.messageId);
    const single = content.lines.length === 1 ? content.lines[0] : undefined;
    const photo = single && content.cropHash ? await deps.image(content.cropHash).catch(() => undefined) : undefined;
    const aggregate = single ? undefined : aggregatedText(content.lines, content.timeZone, options.publicUrl);
    const text = single ? singleAlertText(single, content.timeZone, options.publicUrl) : (aggregate?.text ?? '');
    const included = aggregate?.included ?? content.lines.length;
    // What did not fit in one message waits for the next (at once: it is due already).
    if (included < content.lines.length) await releaseItems(deps.db, message.messageId, content.itemIds.slice(included));
    const method = photo ? 'sendPhoto' : 'sendMessage';
    // The last commit before the request leaves (docs/messaging.md "Exactly once").
    if (!(await markSending(deps.db, message.messageId, method, deps.clock.now()))) return;
    const sent = await attempt(() =>
      photo
        ? deps.api.sendPhoto<{ message_id?: number }>({ chat_id: message.chatId, caption: text }, photo)
        : deps.api.call<{ message_id?: number }>('sendMessage', { chat_id: message.chatId, text, disable_web_page_preview: true }, { timeoutMs: 30_000 }),
    );
    const now = deps.clock.now();
    if (sent.ok) {
      consecutive429 = 0;
      await settleSent(deps.db, message, sent.value?.message_id ?? null, now);
      stats.messages += 1;
      options.onSent?.({ chatId: message.chatId, method, alerts: included, text });
      return;
    }
    const failure = classify(sent.error, now);
    const failed = await settleFailed(deps.db, message, failure, now);
    stats.failures += 1;
    if (failure.kind === 'rate_limited') {
      stats.rateLimited += 1;
      await pauseSending(deps.db, failure.retryAt);
      deps.log.warn({ chat: message.chatId, until: failure.retryAt.toISOString() }, 'telegram 429: all sending paused');
    } else if (failure.kind === 'blocked') {
      deps.log.warn({ chat: message.chatId, items: failed }, 'telegram: the bot was blocked; link deactivated');
    } else {
      deps.log[failed > 0 ? 'error' : 'warn'](
        { chat: message.chatId, err: failure.error, failed },
        failed > 0 ? 'telegram delivery failed for good (see notification_queue)' : 'telegram send failed; will retry',
      );
    }
  }

  function classify(error: unknown, now: Date): Failure {
    const description = error instanceof Error ? error.message : String(error);
    if (error instanceof BotApiError && error.status === 429) {
      consecutive429 += 1;
      return { kind: 'rate_limited', error: description, retryAt: new Date(now.getTime() + pauseAfter429(error.retryAfter, consecutive429)) };
    }
    if (error instanceof BotApiError && error.blocked) return { kind: 'blocked', error: description };
    return { kind: 'error', error: description };
  }

  async function runOnce(): Promise<number> {
    let now = deps.clock.now();
    if (now.getTime() - lastReapMs >= reapEveryMs) {
      lastReapMs = now.getTime();
      const reaped = await reapStaleDeliveries(deps.db, new Date(now.getTime() - options.lockTimeoutMs), now);
      stats.reaped += reaped.resent + reaped.failed;
      if (reaped.resent + reaped.failed > 0) deps.log.warn(reaped, 'telegram delivery: took back the claims of a worker that stopped');
    }
    const pause = await pausedUntil(deps.db);
    if (pause && pause > now) {
      nextDueAt = pause;
      return 0;
    }
    const chats = await dueChats(deps.db, now, options.windowMs);
    nextDueAt = chats.nextDueAt;
    let messages = 0;
    for (const chatId of chats.due) {
      // Stopping: leave the other chats to the next worker rather than hold up the shutdown.
      if (started && !loop.running) break;
      const wait = limits.reserve(chatId, Date.now());
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      now = deps.clock.now();
      const paused = await pausedUntil(deps.db);
      if (paused && paused > now) {
        nextDueAt = paused;
        break;
      }
      const claimed = await claimChat(deps.db, chatId, now);
      if (!claimed) continue;
      await deliver(claimed);
      messages += 1;
    }
    return messages;
  }

  const loop = createWakeableLoop({
    channel: ALERT_CHANNEL,
    errorWaitMs: pollMs,
    log: deps.log,
    name: 'telegram delivery',
    // After a message, look again at once; otherwise sleep until the next item is due.
    pass: async () => {
      if ((await runOnce()) > 0) return 0;
      const untilDue = nextDueAt ? nextDueAt.getTime() - deps.clock.now().getTime() : pollMs;
      return Math.max(10, Math.min(pollMs, untilDue));
    },
  });

  return {
    runOnce,
    stats: () => ({ ...stats }),
    wake: () => loop.wake(),
    start: (listen) => {
      started = true;
      return loop.start(listen);
    },
    stop: () => loop.stop(),
  };
}
