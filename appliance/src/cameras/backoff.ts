import type { Random } from './ports.ts';

/**
 * Camera reconnect backoff, error rule 1 in docs/cameras.md and "Camera reconnect backoff":
 * 1 s, 2 s, 4 s ... capped at 60 s, with jitter, reset after a success. Pure: the runner
 * holds the state, draws the random number and logs each attempt.
 *
 * Jitter is +/- 20 % around the nominal step (not "full jitter"): the documented doubling
 * stays visible in the logs, yet an NVR that dropped all its cameras at once
 * does not get every reconnect in the same millisecond. The jittered delay never exceeds
 * the cap.
 */
export interface ReconnectBackoffConfig {
  /** First delay (1 s). */
  baseMs: number;
  /** Largest delay (60 s). */
  capMs: number;
  /** Share of the nominal delay the jitter may add or take away, 0..1 (default 0.2). */
  jitter: number;
}

export const DEFAULT_RECONNECT_BACKOFF: ReconnectBackoffConfig = { baseMs: 1_000, capMs: 60_000, jitter: 0.2 };

export interface ReconnectBackoffState {
  /** Failed attempts since the last success; 0 after a reset. */
  attempts: number;
}

export const initialReconnectBackoff = (): ReconnectBackoffState => ({ attempts: 0 });

/** A success starts the sequence again at `baseMs`. */
export const resetReconnectBackoff = initialReconnectBackoff;

/** The un-jittered step after `attempts` failures: base * 2^attempts, capped. */
export function nominalDelayMs(attempts: number, config: ReconnectBackoffConfig): number {
  const base = Math.max(1, config.baseMs);
  const cap = Math.max(base, config.capMs);
  // 2^attempts overflows to Infinity past ~1000 attempts; min() still gives the cap.
  return Math.min(cap, base * 2 ** Math.max(0, attempts));
}

/** The wait before the next attempt, and the state to keep. */
export function nextReconnectDelay(
  state: ReconnectBackoffState,
  config: ReconnectBackoffConfig,
  random: Random,
): { delayMs: number; attempt: number; state: ReconnectBackoffState } {
  const nominal = nominalDelayMs(state.attempts, config);
  const cap = Math.max(1, config.baseMs, config.capMs);
  const jitter = Math.min(Math.max(config.jitter, 0), 1);
  // Clamp the draw: an injected random may return exactly 1 or something out of range.
  const draw = Math.min(Math.max(random(), 0), 1);
  const factor = 1 + jitter * (2 * draw - 1);
  const delayMs = Math.max(1, Math.min(cap, Math.round(nominal * factor)));
  const attempts = state.attempts + 1;
  return { delayMs, attempt: attempts, state: { attempts } };
}
