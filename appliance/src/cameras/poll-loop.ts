import { initialReconnectBackoff, nextReconnectDelay, resetReconnectBackoff } from './backoff.ts';
import { DEFAULT_RECONNECT_BACKOFF, type ReconnectBackoffConfig } from './backoff.ts';
import type { CameraConfig } from './config.ts';
import { isSinkRefused } from '../errors.ts';
import { messageOf } from './errors.ts';
import type { CameraLog, Random, RunnerDeps, Sleep } from './ports.ts';
import type { CameraStatusTracker } from './status.ts';

/**
 * The cycle every pull runner (and the vendor_b socket client) lives in: do one step,
 * wait, repeat; on failure back off per error rule 1 in docs/cameras.md (OFFLINE, 1 s doubling to
 * 60 s with jitter, each attempt logged, reset after a success). A refused sink backs
 * off the same way but leaves the camera's state alone: the camera is fine.
 */

/** `more`: go again at once (a full page, a backlog); `idle`: wait the interval. */
export type StepResult = 'more' | 'idle';

export interface LoopOptions {
  source: string;
  intervalMs: number;
  backoff: ReconnectBackoffConfig;
  status: CameraStatusTracker;
  log: CameraLog;
  random: Random;
  sleep: Sleep;
  signal: AbortSignal;
  step(): Promise<StepResult>;
  /** Consecutive `more` steps before a pause anyway, so a chatty camera cannot starve others. */
  maxBurst?: number;
}

export async function runLoop(options: LoopOptions): Promise<void> {
  const { signal, log, status } = options;
  let backoff = initialReconnectBackoff();
  let burst = 0;
  const maxBurst = options.maxBurst ?? 20;
  while (!signal.aborted) {
    try {
      const result = await options.step();
      if (backoff.attempts > 0) log.info({ camera: options.source, after: backoff.attempts }, 'camera back to normal');
      backoff = resetReconnectBackoff();
      if (result === 'more' && burst < maxBurst) {
        burst += 1;
        continue;
      }
      burst = 0;
      await options.sleep(options.intervalMs, signal);
    } catch (error) {
      burst = 0;
      if (signal.aborted) return;
      const message = messageOf(error);
      const sink = isSinkRefused(error);
      if (!sink) status.offline(message);
      const next = nextReconnectDelay(backoff, options.backoff, options.random);
      backoff = next.state;
      if (!sink) status.count('reconnects');
      log.warn(
        { camera: options.source, attempt: next.attempt, delayMs: next.delayMs, error: message },
        sink ? 'sink refused detections; retrying the same reads' : 'camera unreachable; reconnecting',
      );
      await options.sleep(next.delayMs, signal);
    }
  }
}

/** `runLoop` for one configured camera: its id, its backoff settings, the runner's deps. */
export function runCameraLoop(
  config: CameraConfig,
  deps: Pick<RunnerDeps, 'log' | 'random' | 'sleep'>,
  loop: Pick<LoopOptions, 'intervalMs' | 'status' | 'signal' | 'step'>,
): Promise<void> {
  return runLoop({
    source: config.id,
    backoff: { baseMs: config.backoffBaseMs, capMs: config.backoffCapMs, jitter: DEFAULT_RECONNECT_BACKOFF.jitter },
    log: deps.log,
    random: deps.random,
    sleep: deps.sleep,
    ...loop,
  });
}
