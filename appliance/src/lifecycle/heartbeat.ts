import type { Dispatcher } from 'undici';
import type { CommandAckRequest, HeartbeatRequest } from '@alpr/shared/protocol/collector';
import { apiKeyPrefix } from '@alpr/shared/credentials/index';
import { initialBackoff, nextBackoff, resetBackoff, type BackoffConfig, type BackoffState } from '../uplink/backoff.ts';
import { systemTimers } from '../uplink/ports.ts';
import type { HubCollectorStatus } from '../uplink/uplink.ts';
import type { CommandRunner } from './commands.ts';
import { initialHeartbeatState, type HeartbeatState } from './heartbeat-state.ts';
import { postAck, postHeartbeat } from '../hub-api/heartbeat.ts';
import type { Clock, KeyProof, LifecycleLog, Random, Timers } from './ports.ts';
import { commandIdOf } from './verify-command.ts';

/**
 * The heartbeat loop (docs/protocol.md): every `heartbeat_interval_seconds`
 * POST /api/v1/heartbeat, hand each pending command to the runner, acknowledge it. The hub
 * redelivers a command until it is acknowledged, so ids are remembered: a command runs once
 * per process, an ack that got through is never sent again, one that did not is re-sent
 * when the command comes back. Commands run off the beat: a 120 s config watch does not
 * delay the next heartbeat.
 */
export type HeartbeatReport = Omit<HeartbeatRequest, 'config_version'>;

export interface HeartbeatDeps {
  hubUrl: string;
  apiKey: () => string | undefined;
  dispatcher?: Dispatcher;
  clock: Clock;
  timers?: Timers;
  random: Random;
  log: LifecycleLog;
  /** From the merged configuration (default 60); the hub's answer overrides it. */
  intervalSeconds: number;
  /** The body, except config_version (the runner's). */
  report: () => HeartbeatReport;
  runner: CommandRunner;
  /** Retry after a failed beat: 5 s doubling (jittered) up to the interval. */
  backoff?: BackoffConfig;
  /**
   * Hears the collector's status on the hub after every answered beat: `disabled` / `active`
   * from `collector_status`, `replaced` from a 401 `collector_replaced`. The uplink listens
   * (suspended with an empty buffer; drain at once on resume).
   */
  onHubStatus?: (status: HubCollectorStatus) => void;
}

export interface HeartbeatHandle {
  /** Stops scheduling and waits for a beat in flight; a command under way still finishes and acks. */
  stop(): Promise<void>;
  state(): HeartbeatState;
  /** Beat now instead of waiting for the timer (also what the timer calls). */
  beatNow(): Promise<void>;
  /** A beat now with the key in use, after any beat in flight (which may carry the old key). */
  prove(): Promise<KeyProof>;
  /** Resolves when no beat is in flight and every dispatched command is done and acked (or failed to). */
  idle(): Promise<void>;
}

const MAX_REPORTED_ERRORS = 20;
/** A wipe's ack is its last word (the key is gone afterwards): a few tries before restarting anyway. */
const FINAL_ACK_TRIES = 5;

export function startHeartbeat(deps: HeartbeatDeps): HeartbeatHandle {
  const timers = deps.timers ?? systemTimers;
  const state = initialHeartbeatState(deps.intervalSeconds);
  state.running = true;
  const iso = (): string => new Date(deps.clock.now()).toISOString();
  let backoff: BackoffState = initialBackoff();
  let timer: unknown;
  let beating: Promise<void> | undefined;
  let work: Promise<void> = Promise.resolve();
  const acked = new Set<string>();
  const started = new Set<string>();
  const awaitingAck = new Map<string, CommandAckRequest>();
  const pendingReports: string[] = [];

  const tell = (status: HubCollectorStatus): void => {
    try {
      deps.onHubStatus?.(status);
    } catch (error) {
      // A listener's bug must not cost the beat (its commands, its next schedule).
      deps.log.error({ err: error }, 'hub status listener failed');
    }
  };

  const report = (text: string): void => {
    pendingReports.push(text.slice(0, 500));
    if (pendingReports.length > MAX_REPORTED_ERRORS) pendingReports.shift();
  };

  function schedule(ms: number): void {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    if (!state.running) return;
    state.nextBeatAt = new Date(deps.clock.now() + ms).toISOString();
    timer = timers.setTimeout(() => {
      timer = undefined;
      void beatNow();
    }, ms);
  }

  function fail(message: string): void {
    state.lastError = message;
    state.consecutiveFailures += 1;
    const step = nextBackoff(backoff, deps.backoff ?? { baseMs: 5_000, capMs: Math.max(5_000, state.intervalSeconds * 1000) }, deps.random);
    backoff = step.state;
    deps.log.warn({ error: message, retry_in_ms: step.delayMs }, 'heartbeat failed');
    schedule(step.delayMs);
  }

  async function acknowledge(dispatchKey: string, id: string, ack: CommandAckRequest, tries: number): Promise<boolean> {
    for (let attempt = 1; attempt <= tries; attempt += 1) {
      // The key in use now, not the one of the beat that brought the command: a rotate_key
      // is acknowledged on the new key, which is what lets the hub retire the old one.
      const apiKey = deps.apiKey() ?? dispatchKey;
      const result = await postAck({ hubUrl: deps.hubUrl, ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}) }, apiKey, id, ack);
      if (result.ok) {
        acked.add(id);
        awaitingAck.delete(id);
        state.commandsAcknowledged += 1;
        deps.log.info({ command_id: id, ack: ack.status, hub: result.value }, 'command acknowledged');
        return true;
      }
      deps.log.warn({ command_id: id, error: result.message, attempt }, 'command ack failed');
      if (attempt < tries) await new Promise<void>((resolve) => timers.setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
    }
    awaitingAck.set(id, ack);
    return false;
  }

  function dispatch(raw: unknown, apiKey: string): void {
    const id = commandIdOf(raw);
    if (id !== undefined && acked.has(id)) return;
    if (id !== undefined && awaitingAck.has(id)) {
      const ack = awaitingAck.get(id);
      // Ran already; only the ack was lost. Re-send it, never re-run the command.
      if (ack) work = work.then(async () => void (await acknowledge(apiKey, id, ack, 1)));
      return;
    }
    if (id !== undefined && started.has(id)) return;
    if (id !== undefined) started.add(id);
    work = work.then(async () => {
      const outcome = await deps.runner.handle(raw);
      if (outcome.kind === 'refused') {
        state.commandsRefused += 1;
        report(outcome.reason);
        return;
      }
      if (outcome.refused) {
        state.commandsRefused += 1;
        report(`command ${outcome.id} refused: ${outcome.ack.detail}`);
      }
      const final = outcome.afterAck !== undefined;
      await acknowledge(apiKey, outcome.id, outcome.ack, final ? FINAL_ACK_TRIES : 1);
      if (outcome.afterAck) await outcome.afterAck();
    });
    work = work.catch((error: unknown) => {
      deps.log.error({ err: error }, 'command handling failed');
    });
  }

  async function beat(): Promise<void> {
    state.lastAttemptAt = iso();
    const apiKey = deps.apiKey();
    if (!apiKey) return fail('no API key: not claimed');
    const base = deps.report();
    const errors = [...(base.errors ?? []), ...pendingReports].slice(-MAX_REPORTED_ERRORS);
    const body: HeartbeatRequest = { ...base, config_version: deps.runner.configVersion(), ...(errors.length > 0 ? { errors } : {}) };
    const result = await postHeartbeat({ hubUrl: deps.hubUrl, ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}) }, apiKey, body);
    if (!result.ok) {
      state.keyRejected = result.keyRejected;
      state.replaced = result.keyRejected && result.refusal === 'collector_replaced';
      if (state.replaced) {
        deps.log.error({ key_prefix: apiKeyPrefix(apiKey) }, 'this box was replaced by another device on the hub; it no longer uploads');
        tell('replaced');
      } else if (result.keyRejected) deps.log.error({ key_prefix: apiKeyPrefix(apiKey) }, 'hub rejected the API key');
      return fail(result.message);
    }
    pendingReports.splice(0, pendingReports.length);
    backoff = resetBackoff();
    state.keyRejected = false;
    state.replaced = false;
    state.collectorStatus = result.value.collector_status ?? null;
    if (result.value.collector_status) tell(result.value.collector_status);
    state.lastOkAt = iso();
    state.lastError = null;
    state.consecutiveFailures = 0;
    state.intervalSeconds = result.value.heartbeat_interval_seconds ?? deps.intervalSeconds;
    for (const raw of result.value.pending_commands) dispatch(raw, apiKey);
    schedule(state.intervalSeconds * 1000);
  }

  function beatNow(): Promise<void> {
    if (beating) return beating;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    beating = beat()
      .catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        beating = undefined;
      });
    return beating;
  }

  schedule(0);
  return {
    async stop() {
      state.running = false;
      state.nextBeatAt = null;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      await beating;
    },
    state: () => ({ ...state }),
    beatNow,
    async prove() {
      if (beating) await beating.catch(() => undefined);
      await beatNow();
      if (state.lastError === null) return 'ok';
      return state.keyRejected ? 'key_rejected' : 'unreachable';
    },
    async idle() {
      for (;;) {
        const current = work;
        await beating;
        await current;
        if (current === work && beating === undefined) return;
      }
    },
  };
}
