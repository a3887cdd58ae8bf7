import { apiKeyPrefix } from '@alpr/shared/credentials/index';
import type { Dispatcher } from 'undici';
import { createHubAgent, type HubTrust } from '../hub-api/tls.ts';
import { uploadBatch } from './upload.ts';
import type { BackoffState } from './backoff.ts';
import { initialBackoff, nextBackoff, resetBackoff } from './backoff.ts';
import { decideUpload, windowMsFor } from './batch-trigger.ts';
import type { UplinkConfig, UplinkConfigInput } from './config.ts';
import { resolveUplinkConfig } from './config.ts';
import type { DeliveryReport } from './deliver.ts';
import { deliverBatch } from './deliver.ts';
import type { Clock, Random, TimerHandle, Timers, UplinkBufferPort, UplinkLog } from './ports.ts';
import { systemTimers } from './ports.ts';
import type { UplinkErrorKind, UplinkState } from './uplink-state.ts';
import { copyState, initialUplinkState } from './uplink-state.ts';

export interface UplinkDeps {
  buffer: UplinkBufferPort;
  clock: Clock;
  /** Default: the real setTimeout. Tests pass manual timers and move time themselves. */
  timers?: Timers;
  random: Random;
  log: UplinkLog;
  config: UplinkConfigInput;
  /** An undici Agent or Pool; default: an Agent owned (and closed on stop) by the uplink. */
  dispatcher?: Dispatcher;
  /** Hub certificate pins for the owned Agent (hub-api/tls.ts); absent: CA-checked. */
  trust?: HubTrust;
  /** The previous uplink's suspension (a config_update restarts the pipeline): still suspended since then. */
  suspendedSinceMs?: number;
}

/**
 * What the heartbeat learns about this collector on the hub: `active` / `disabled` from the
 * answer's `collector_status`, `replaced` from a 401 `collector_replaced`.
 */
export type HubCollectorStatus = 'active' | 'disabled' | 'replaced';

export interface UplinkHandle {
  /** Stops scheduling, waits for the upload in flight, closes an owned dispatcher. */
  stop(): Promise<void>;
  state(): UplinkState;
  /** Re-evaluate the triggers now (the buffer calls this after an insert). */
  kick(): void;
  /** Resolves once no pass runs: the loop is waiting on a timer, or stopped. */
  idle(): Promise<void>;
  /**
   * The heartbeat's news. `disabled` marks the uplink suspended even with nothing to send;
   * `active` after a suspension lifts the Retry-After wait and uploads at once, so the backlog
   * drains right after the resume instead of up to a minute later.
   */
  hubStatus(status: HubCollectorStatus): void;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The upload loop. One pass at a time: read the buffer's stats, decide with the batch
 * triggers, take the oldest batch, deliver it, then either go again at once (catching up)
 * or sleep on ONE timer until the next reason to look (window due, backoff over,
 * backpressure over, idle poll). Nothing escapes the loop: every error becomes a backoff.
 */
export function startUplink(deps: UplinkDeps): UplinkHandle {
  const config: UplinkConfig = resolveUplinkConfig(deps.config);
  const { buffer, clock, random, log } = deps;
  const timers = deps.timers ?? systemTimers;
  // One connection: one upload in flight at a time, kept alive across a drain.
  const ownDispatcher = deps.dispatcher ? undefined : createHubAgent({ connections: 1, ...(deps.trust ? { trust: deps.trust } : {}) });
  const dispatcher: Dispatcher = deps.dispatcher ?? (ownDispatcher as Dispatcher);
  const uploaderDeps = { dispatcher, hubUrl: config.hubUrl, timeouts: config.timeouts, nowMs: () => clock.now() };

  const state = initialUplinkState();
  state.running = true;
  if (deps.suspendedSinceMs !== undefined) {
    state.suspended = true;
    state.suspendedSinceMs = deps.suspendedSinceMs;
  }
  // When the heartbeat last said `active`: a 403 to an attempt that started before it is stale.
  let resumedAtMs = Number.NEGATIVE_INFINITY;
  let backoff: BackoffState = initialBackoff();
  let consecutivePoison = 0;
  let lastKey: string | undefined;
  let timer: TimerHandle | undefined;
  let pass: Promise<void> | null = null;
  let kickedDuringPass = false;

  function fail(kind: UplinkErrorKind, message: string, status?: number, retryAfterMs?: number): number {
    const now = clock.now();
    const next = nextBackoff(backoff, config.backoff, random);
    backoff = next.state;
    const delayMs = Math.max(next.delayMs, retryAfterMs ?? 0);
    state.consecutiveFailures = backoff.failures;
    state.retryAtMs = now + delayMs;
    state.lastError = status === undefined ? { atMs: now, kind, message } : { atMs: now, kind, message, status };
    log.warn({ kind, status, reason: message, retryInMs: delayMs, failures: backoff.failures }, 'uplink: upload failed; detections stay buffered');
    return state.retryAtMs;
  }

  function suspend(): void {
    if (state.suspended) return;
    state.suspended = true;
    state.suspendedSinceMs = clock.now();
    log.warn({}, 'uplink: the hub suspended this collector; detections stay buffered and go once it is resumed');
  }

  function resume(why: string): void {
    if (!state.suspended) return;
    state.suspended = false;
    state.suspendedSinceMs = null;
    log.info({ why }, 'uplink: the hub resumed this collector');
  }

  /**
   * A suspended hub answered, so the key and the path are fine: no failure is counted and
   * the backoff starts over (a 403 every minute must not look like a broken link to the
   * config_update watch, lifecycle/health.ts). The next try is the hub's Retry-After away,
   * the same every time.
   */
  function settleSuspended(retryAfterMs: number, attemptedAtMs: number): number | 'again' {
    state.keyStatus = 'ok';
    state.replaced = false;
    state.consecutiveFailures = 0;
    backoff = resetBackoff();
    if (resumedAtMs >= attemptedAtMs) {
      // The heartbeat said `active` while this request was out: the 403 may predate the
      // resume, so one more try at once. Used up here: a second 403 is believed.
      resumedAtMs = Number.NEGATIVE_INFINITY;
      state.retryAtMs = null;
      return 'again';
    }
    suspend();
    state.retryAtMs = clock.now() + retryAfterMs;
    log.debug({ retryInMs: retryAfterMs }, 'uplink: collector suspended by the hub; trying again after Retry-After');
    return state.retryAtMs;
  }

  function settle(report: DeliveryReport, sent: number, key: string, attemptedAtMs: number): number | 'again' {
    const { totals, end } = report;
    state.totals.requests += totals.requests;
    state.totals.bytes += totals.bytes;
    state.totals.stored += totals.stored;
    state.totals.duplicate += totals.duplicate;
    state.totals.rejected += totals.rejected;
    if (totals.stored + totals.duplicate > 0) state.keyStatus = 'ok';
    if (end.kind === 'suspended') return settleSuspended(end.retryAfterMs, attemptedAtMs);
    if (end.kind === 'key_rejected' && end.reason === 'collector_replaced') {
      state.keyStatus = 'rejected';
      state.replaced = true;
      log.error(
        { key_prefix: apiKeyPrefix(key) },
        'uplink: this box was replaced by another device on the hub (401 collector_replaced); detections stay buffered',
      );
      return fail('key_rejected', 'hub answered 401: this box was replaced by another device on the hub', 401);
    }
    if (end.kind === 'key_rejected') {
      state.keyStatus = 'rejected';
      log.error({ key_prefix: apiKeyPrefix(key) }, 'uplink: hub rejected the API key (401); uploads paused with backoff');
      return fail('key_rejected', 'hub answered 401: API key missing, revoked, expired or unknown', 401);
    }
    if (end.kind === 'failed') {
      const kind = end.status !== undefined && end.status >= 400 && end.status < 500 && end.status !== 429 ? 'hub_refused' : 'network_or_server';
      return fail(kind, end.reason, end.status, end.retryAfterMs);
    }
    state.keyStatus = 'ok';
    state.replaced = false;
    const now = clock.now();
    if (end.backpressure) {
      // Honoured even when nothing was acknowledged: the hub is telling us it is loaded.
      const seconds = Math.min(end.backpressure.recommended_delay_seconds, config.maxBackpressureSeconds);
      state.backpressureUntilMs = now + seconds * 1000;
      state.backpressureReason = end.backpressure.reason;
      log.info({ delaySeconds: seconds, reason: end.backpressure.reason }, 'uplink: hub asked for backpressure; buffering meanwhile');
    }
    if (report.progressed === 0) {
      const retryAtMs = fail('no_progress', `hub acknowledged none of ${sent} detections`);
      return Math.max(retryAtMs, state.backpressureUntilMs ?? 0);
    }
    state.totals.batches += 1;
    resume('an upload was accepted');
    state.lastSuccessAtMs = now;
    state.consecutiveFailures = 0;
    state.retryAtMs = null;
    backoff = resetBackoff();
    log.debug({ sent, stored: totals.stored, duplicate: totals.duplicate, rejected: totals.rejected }, 'uplink: batch delivered');
    if (state.backpressureUntilMs !== null) return state.backpressureUntilMs;
    return 'again';
  }

  /** One look at the buffer and at most one batch. Returns when to look next. */
  async function step(): Promise<number | 'again'> {
    const now = clock.now();
    const key = config.apiKey();
    if (!key) return now + config.idlePollMs;
    if (key !== lastKey) {
      if (lastKey !== undefined) {
        // A new key (rotation, re-claim) deserves an immediate try, even mid-backoff.
        log.info({ key_prefix: apiKeyPrefix(key) }, 'uplink: API key changed');
        state.keyStatus = 'unknown';
        state.replaced = false;
        state.retryAtMs = null;
        backoff = resetBackoff();
      }
      lastKey = key;
    }
    const gate = Math.max(state.retryAtMs ?? 0, state.backpressureUntilMs ?? 0);
    if (now < gate) return gate;
    state.backpressureUntilMs = null;
    state.backpressureReason = null;
    const stats = await buffer.pendingStats();
    const decision = decideUpload({
      nowMs: now,
      stats,
      limits: config.limits,
      windowMs: windowMsFor(stats.cameraIds, config.windows),
    });
    if (decision.action === 'idle') return now + config.idlePollMs;
    if (decision.action === 'wait') return decision.untilMs;
    const items = await buffer.nextBatch(config.limits);
    if (items.length === 0) return now + config.idlePollMs;
    state.lastAttemptAtMs = now;
    log.debug({ reason: decision.reason, items: items.length }, 'uplink: sending batch');
    const report = await deliverBatch(
      {
        buffer,
        log,
        upload: (batch) => uploadBatch(uploaderDeps, key, batch),
        maxConsecutivePoison: config.maxConsecutivePoison,
      },
      items,
      consecutivePoison,
    );
    consecutivePoison = report.consecutivePoison;
    return settle(report, items.length, key, now);
  }

  function clearTimer(): void {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  }

  function schedule(wakeAtMs: number): void {
    clearTimer();
    timer = timers.setTimeout(
      () => {
        timer = undefined;
        startPass();
      },
      Math.max(0, wakeAtMs - clock.now()),
    );
  }

  function startPass(): void {
    if (!state.running) return;
    if (pass) {
      kickedDuringPass = true;
      return;
    }
    clearTimer();
    state.busy = true;
    pass = (async () => {
      let wakeAtMs: number | undefined;
      try {
        for (;;) {
          kickedDuringPass = false;
          const next = await step();
          if (!state.running) return;
          if (next === 'again' || kickedDuringPass) continue;
          wakeAtMs = next;
          break;
        }
      } catch (error) {
        // The buffer threw (disk full, corrupt file...): same treatment as a failed upload.
        log.error({ err: describe(error) }, 'uplink: pass failed');
        wakeAtMs = fail('internal', describe(error));
      } finally {
        pass = null;
        state.busy = false;
        if (state.running && wakeAtMs !== undefined) schedule(wakeAtMs);
      }
    })();
  }

  startPass();

  function hubStatus(status: HubCollectorStatus): void {
    if (!state.running) return;
    if (status === 'disabled') return suspend();
    if (status === 'replaced') {
      state.replaced = true;
      state.keyStatus = 'rejected';
      return;
    }
    // `active` came in a 200 to our key: whatever 401 we saw before, we are not replaced.
    state.replaced = false;
    resumedAtMs = clock.now();
    if (!state.suspended) return;
    resume('the heartbeat says active');
    // The Retry-After wait was the hub's suspension, now over: try at once.
    state.retryAtMs = null;
    backoff = resetBackoff();
    startPass();
  }

  return {
    kick: startPass,
    hubStatus,
    state: () => copyState(state),
    async idle() {
      while (pass) await pass;
    },
    async stop() {
      state.running = false;
      clearTimer();
      while (pass) await pass;
      if (ownDispatcher && !ownDispatcher.closed) await ownDispatcher.close();
    },
  };
}
