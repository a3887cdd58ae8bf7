import type { Random } from './ports.ts';

/**
 * Retry delays after a failed upload: "decorrelated jitter" (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"): next = min(cap, uniform(base, previous * 3)).
 * Chosen over full jitter because full jitter can pick ~0 ms, and a site with a flapping
 * link would then hammer the hub; decorrelated jitter never goes below `base` yet still
 * spreads 100 collectors that all lost the hub at the same moment. Growth is exponential
 * on average (x2 per failure for a uniform draw) up to `cap`.
 */
export interface BackoffConfig {
  /** First and smallest delay (default 1 s). */
  baseMs: number;
  /** Largest delay (default 60 s). */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffConfig = { baseMs: 1_000, capMs: 60_000 };

export interface BackoffState {
  /** Failures since the last success. */
  failures: number;
  /** The last delay handed out; 0 after a reset. */
  lastDelayMs: number;
}

export const initialBackoff = (): BackoffState => ({ failures: 0, lastDelayMs: 0 });

/** A success resets the sequence: the next failure starts again near `base`. */
export const resetBackoff = initialBackoff;

export function nextBackoff(state: BackoffState, config: BackoffConfig, random: Random): { delayMs: number; state: BackoffState } {
  const base = Math.max(1, config.baseMs);
  const cap = Math.max(base, config.capMs);
  const previous = state.lastDelayMs > 0 ? state.lastDelayMs : base;
  const upper = Math.max(base, previous * 3);
  // Clamp the draw: an injected random may return exactly 1.
  const draw = Math.min(Math.max(random(), 0), 1);
  const delayMs = Math.min(cap, Math.round(base + draw * (upper - base)));
  return { delayMs, state: { failures: state.failures + 1, lastDelayMs: delayMs } };
}
